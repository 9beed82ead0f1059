import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { del, get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { APNS_TOPIC } from '../engine/delivery-harness.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Delivery stats of a Live Activity's latest event (docs/live-activities.md, "Delivery stats"): what the fakes
 * answered, counted per mode and platform, adding up (targeted = delivered + failed + skipped + pending), and the
 * devices that failed listed by GET /live-activities/{id}/failures.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const score = { title: 'Ajax – PSV', home: { name: 'Ajax', score: 0 }, away: { name: 'PSV', score: 0 } };
const counts = (targeted: number, delivered: number, failed = 0, skipped = 0, pending = 0) => ({
  targeted,
  delivered,
  failed,
  skipped,
  pending,
});

async function activity(account: { secretKey: string }, id: string) {
  const response = await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey);
  expect(response.statusCode).toBe(200);
  return response.body.data;
}

async function failures(account: { secretKey: string }, id: string) {
  const response = await get(h.app, `/api/v1/live-activities/${id}/failures`, account.secretKey);
  expect(response.statusCode).toBe(200);
  return response.body.data;
}

async function change(account: { secretKey: string }, id: string, event: 'update' | 'end', body: object = {}) {
  h.clock.advance(1_000);
  const response = await post(h.app, `/api/v1/live-activities/${id}/${event}`, account.secretKey, body);
  expect(response.statusCode).toBe(200);
  return response.body.data;
}

describe('Live Activity delivery stats', () => {
  it('count each event per token on every platform, list the devices it failed, and forget an erased one', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    await h.iosDevice(account, 'orders', { osVersion: '17.5' });
    await h.androidDevice(account, 'orders');
    const gone = `fcm-gone-${Date.now()}`;
    const registered = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'orders',
      platform: 'android',
      token: gone,
      externalId: 'leaving-user',
    });
    expect(registered.statusCode).toBe(201);
    const goneId = registered.body.data.id as string;
    // FCM: UNREGISTERED, the app was uninstalled (https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode).
    h.fcm.setTokenOutcome(gone, { errorCode: 'UNREGISTERED' });

    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'Order 1042', progress: 0.1 },
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    // The running worker may already have dispatched a batch by the time the answer reads the stats: whatever it shows,
    // every device it counts is accounted for.
    const first = started.body.data.lastEvent;
    expect(first.event).toBe('start');
    expect(['dispatching', 'sending', 'done']).toContain(first.status);
    expect(first.targeted).toBe(first.delivered + first.failed + first.skipped + first.pending);
    await h.settle();

    expect((await activity(account, id)).lastEvent).toEqual({
      event: 'start',
      at: started.body.data.createdAt,
      status: 'done',
      ...counts(3, 2, 1),
      byMode: { tokens: counts(3, 2, 1) },
      byPlatform: { ios: counts(1, 1), android: counts(2, 1, 1) },
    });
    expect(await failures(account, id)).toEqual([
      {
        subscriberId: goneId,
        platform: 'android',
        event: 'start',
        reason: 'token_unregistered',
        failedAt: expect.any(String),
      },
    ]);

    // The update goes to the iOS device's activity token and the Android device still subscribed: both reached.
    await waitFor(
      () => h.reporter.reports.some((report) => report.liveActivityId === id),
      10_000,
      "the iOS device's token report",
    );
    const updated = await change(account, id, 'update', { fields: { progress: 0.5 } });
    expect(updated.lastEvent).toMatchObject({ event: 'update', status: 'dispatching' });
    await h.settle();
    expect((await activity(account, id)).lastEvent).toMatchObject({
      event: 'update',
      at: updated.updatedAt,
      status: 'done',
      ...counts(2, 2),
      byMode: { tokens: counts(2, 2) },
      byPlatform: { ios: counts(1, 1), android: counts(1, 1) },
    });
    // The failures are the latest event's: none.
    expect(await failures(account, id)).toEqual([]);

    // The start's failure row names the erased person's subscriber: it goes with them.
    const rowsOf = () =>
      h.store.db
        .selectFrom('live_activity_failures')
        .select('subscriber_id')
        .where('live_activity_id', '=', id)
        .execute();
    expect(await rowsOf()).toEqual([{ subscriber_id: goneId }]);
    expect((await del(h.app, '/api/v1/users/leaving-user', account.secretKey)).statusCode).toBe(200);
    expect(await rowsOf()).toEqual([]);
  });

  it('count a broadcast once for every device on the channel, and a request APNs refused as failed with its reason', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    await h.iosDevice(account, 'match', { osVersion: '18.2' });
    await h.iosDevice(account, 'match', { osVersion: '18.4' });
    await h.androidDevice(account, 'match');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields: score,
    });
    const id = started.body.data.id as string;
    await h.settle();
    // The start goes to each device's push-to-start token, those on the channel included.
    expect((await activity(account, id)).lastEvent).toMatchObject({
      status: 'done',
      ...counts(3, 3),
      byMode: { tokens: counts(3, 3) },
    });

    await change(account, id, 'update', { fields: { home: { score: 1 } } });
    await h.settle();
    const broadcasts = () => h.apns.requests.filter((request) => request.kind === 'broadcast');
    expect(broadcasts()).toHaveLength(1);
    expect((await activity(account, id)).lastEvent).toEqual(
      expect.objectContaining({
        event: 'update',
        status: 'done',
        ...counts(3, 3),
        byMode: { broadcast: { ...counts(2, 2), failureReason: null }, tokens: counts(1, 1) },
        byPlatform: { ios: counts(2, 2), android: counts(1, 1) },
      }),
    );

    // APNs no longer knows the channel (https://developer.apple.com/documentation/usernotifications/sending-channel-management-requests-to-apns):
    // the end cannot reach the devices on it.
    const { channelId } = await activity(account, id);
    h.apns.channels.delete(APNS_TOPIC, channelId);
    await change(account, id, 'end', {});
    await h.settle();
    expect((await activity(account, id)).lastEvent).toMatchObject({
      event: 'end',
      status: 'done',
      ...counts(3, 1, 2),
      byMode: { broadcast: { ...counts(2, 0, 2), failureReason: 'apns:ChannelNotRegistered' }, tokens: counts(1, 1) },
    });
  });

  it('count a broadcast APNs keeps answering 503 as failed once its job gives up, so the event still ends done', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'match',
        template: 'score',
        fields: score,
        delivery: 'broadcast',
      })
    ).body.data.id as string;
    await h.settle();
    // 503 ServiceUnavailable: "The service is unavailable" — try again later (Apple, "Handling notification responses
    // from APNs"). Every request on the channel gets it from now on.
    h.apns.failNext(1_000, { reason: 'ServiceUnavailable', retryAfterSeconds: 60 });
    await change(account, id, 'update', { fields: { home: { score: 1 } } });
    await h.settle();
    expect((await activity(account, id)).lastEvent).toMatchObject({ status: 'sending', ...counts(1, 0, 0, 0, 1) });

    // Its next attempt is its last: the broadcast is given up, and counted.
    const [retry] = await h.store.db
      .updateTable('jobs')
      .set((eb) => ({ max_attempts: eb('attempt', '+', 1) }))
      .where('kind', '=', 'live_activity.broadcast')
      .where('state', '=', 'available')
      .returning('run_at')
      .execute();
    h.clock.set(Number(retry!.run_at));
    await h.settle();
    h.apns.reset();
    expect((await activity(account, id)).lastEvent).toMatchObject({
      event: 'update',
      status: 'done',
      ...counts(1, 0, 1),
      byMode: { broadcast: { ...counts(1, 0, 1), failureReason: 'retry_exhausted' } },
    });
  });

  it('count the devices a lost channel restarts per token, and the broadcast they left as skipped', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const device = await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'match',
        template: 'score',
        fields: score,
        delivery: 'broadcast',
      })
    ).body.data.id as string;
    await h.settle();
    h.apns.channels.delete(APNS_TOPIC, (await activity(account, id)).channelId);
    await change(account, id, 'update', { fields: { home: { score: 1 } } });
    await h.settle();
    // Per token: the restart (a start on the device's push-to-start token, its second), then, once the device reports
    // its new activity token, the current state again as a late joiner's update (live-activity-catch-up.ts). The
    // report comes from the fake device on its own time: wait for the update it brings to be counted.
    expect(h.apnsPushes(device.pushToStartToken!).map((request) => request.status)).toEqual([200, 200]);
    await waitFor(
      async () => (await activity(account, id)).lastEvent.byMode.tokens?.delivered === 2,
      10_000,
      'the catch-up update to be counted',
    );
    expect((await activity(account, id)).lastEvent).toMatchObject({
      event: 'update',
      status: 'done',
      ...counts(3, 2, 0, 1),
      byMode: { broadcast: { ...counts(1, 0, 0, 1), failureReason: null }, tokens: counts(2, 2) },
    });
  });

  it('count a late joiner with the latest event once, however often its app registers', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'orders',
        template: 'progress',
        fields: { title: 'Order 1043', progress: 0.1 },
      })
    ).body.data.id as string;
    await h.settle();
    expect((await activity(account, id)).lastEvent).toMatchObject({ status: 'done', ...counts(0, 0) });

    h.clock.advance(1_000);
    const late = await h.iosDevice(account, 'orders', { osVersion: '17.5' });
    const again = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'orders',
      platform: 'ios',
      token: late.token,
      pushToStartToken: late.pushToStartToken,
    });
    expect(again.statusCode).toBe(200);
    await h.settle();
    expect(h.apnsPushes(late.pushToStartToken!)).toHaveLength(1);
    expect((await activity(account, id)).lastEvent).toMatchObject({
      event: 'start',
      status: 'done',
      ...counts(1, 1),
      byPlatform: { ios: counts(1, 1) },
    });
  });
});
