import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Late joiners: a device that registers a push-to-start token while an activity of its channel runs is started with
 * the current state at once (on the broadcast channel when it is on iOS 18), once; a device that reports its activity
 * token after updates went out is sent the current state at once.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const fields = { title: 'Ajax – PSV', home: { name: 'Ajax', score: 0 }, away: { name: 'PSV', score: 0 } };
const current = { ...fields, home: { name: 'Ajax', score: 2 } };

describe('late joiners', () => {
  it('starts a device that joins mid-activity with the current state, once, and on the channel for iOS 18', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
    });
    const id = started.body.data.id as string;
    await h.settle();
    h.clock.advance(1_000);
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { home: { score: 2 } } });
    await h.settle();
    const channelId = (
      await h.store.db
        .selectFrom('live_activities')
        .select('apns_channel_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).apns_channel_id;

    h.clock.advance(1_000);
    const lateModern = await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const lateOlder = await h.iosDevice(account, 'match', { osVersion: '17.4' });
    await h.settle();
    const modernActivity = await h.deviceActivity(lateModern, id);
    expect(modernActivity).toMatchObject({ state: 'active', contentState: current, channelId });
    const olderActivity = await h.deviceActivity(lateOlder, id);
    expect(olderActivity).toMatchObject({ state: 'active', contentState: current, channelId: null });

    // Registering again (the app does at every launch) starts nothing more.
    await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'match',
      platform: 'ios',
      token: lateOlder.token,
      pushToStartToken: lateOlder.pushToStartToken,
      osVersion: '17.4',
    });
    await h.settle();
    expect(h.apnsPushes(lateOlder.pushToStartToken!)).toHaveLength(1);

    // Both follow the next event: the channel's broadcast, and the reported token.
    h.clock.advance(1_000);
    await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, {});
    await h.settle();
    expect(modernActivity.state).toBe('ended');
    expect(olderActivity.state).toBe('ended');
  });

  it('sends the current state at once to a device that reports its activity token after updates went out', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    // Registered without the harness, so nobody reports its token on its own.
    const pushToStartToken = randomBytes(40).toString('hex');
    const deviceToken = randomBytes(32).toString('hex');
    const registered = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'match',
      platform: 'ios',
      token: deviceToken,
      pushToStartToken,
    });
    const subscriberId = registered.body.data.id as string;
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
    });
    const id = started.body.data.id as string;
    await h.settle();
    h.clock.advance(1_000);
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { home: { score: 2 } } });
    await h.settle();
    const activity = h.apns.liveActivities.find(
      (candidate) => candidate.pushToStartToken === pushToStartToken && candidate.attributes.activityId === id,
    )!;
    expect(activity.contentState).toEqual({ ...fields, clarionReceipt: expect.stringMatching(/^a/) });

    const reported = await post(h.app, `/api/v1/live-activities/${id}/tokens`, account.publishableKey, {
      subscriberId,
      token: activity.updateToken,
      deviceToken,
    });
    expect(reported.statusCode).toBe(201);
    await h.settle();
    expect(activity.contentState).toEqual(current);
    const [catchUp] = h.apnsPushes(activity.updateToken);
    expect(catchUp!.headers['apns-priority']).toBe('10');
    expect(catchUp!.payload).toMatchObject({ aps: { event: 'update', 'content-state': current } });
  });
});
