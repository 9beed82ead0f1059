import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepLiveActivityChannelsJob } from '../../../src/delivery/live-activities/live-activity-jobs.ts';
import { get, post } from '../../harness/requests.ts';
import { APNS_TOPIC } from '../engine/delivery-harness.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * iOS 18 broadcast end to end against the fake APNs: auto mode on a mixed channel (iOS 18 on the broadcast channel,
 * iOS 17 per token, Android per device), one APNs request per update for the whole broadcast part, the channel
 * deleted after the end, and the sweeper deleting channels a crash left behind.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const broadcasts = () => h.apns.requests.filter((request) => request.kind === 'broadcast');
const fields = { title: 'Ajax – PSV', home: { name: 'Ajax', score: 0 }, away: { name: 'PSV', score: 0 } };

describe('Live Activities over APNs broadcast channels', () => {
  it('auto: iOS 18 devices on one channel, iOS 17 per token, Android per device; one request per update; channel deleted at the end', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const modern = [
      await h.iosDevice(account, 'match', { osVersion: '18.2' }),
      await h.iosDevice(account, 'match', { osVersion: '26.0' }),
    ];
    const older = await h.iosDevice(account, 'match', { osVersion: '17.5' });
    const android = await h.androidDevice(account, 'match');
    const before = broadcasts().length;

    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    expect(started.body.data).toMatchObject({
      delivery: 'auto',
      recipientCount: 4,
      recipientCounts: { broadcast: 2, tokens: 2 },
      deliveryModes: ['broadcast', 'tokens'],
    });
    await h.settle();

    const record = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data;
    const channelId = record.channelId as string;
    expect(channelId).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(h.apns.channels.list(APNS_TOPIC).map((channel) => channel.id)).toContain(channelId);
    for (const device of modern) {
      const [start] = h.apnsPushes(device.pushToStartToken!);
      expect(start!.payload).toMatchObject({ aps: { event: 'start', 'input-push-channel': channelId } });
      expect((start!.payload as { aps: Record<string, unknown> }).aps['input-push-token']).toBeUndefined();
    }
    expect(h.apnsPushes(older.pushToStartToken!)[0]!.payload).toMatchObject({
      aps: { event: 'start', 'input-push-token': 1 },
    });

    // Two updates and the end: one broadcast request each, whatever the number of iOS 18 devices.
    for (const [path, body] of [
      ['update', { fields: { home: { score: 1 } } }],
      ['update', { fields: { away: { score: 1 } }, priority: 'low' }],
      ['end', { fields: { period: 'Full time' } }],
    ] as const) {
      h.clock.advance(1_000);
      expect((await post(h.app, `/api/v1/live-activities/${id}/${path}`, account.secretKey, body)).statusCode).toBe(
        200,
      );
      await h.settle();
    }
    const sent = broadcasts().slice(before);
    expect(
      sent.map((request) => [
        request.status,
        request.channelId,
        (request.payload as { aps: { event: string } }).aps.event,
        request.headers['apns-priority'],
      ]),
    ).toEqual([
      [200, channelId, 'update', '5'],
      [200, channelId, 'update', '5'],
      [200, channelId, 'end', '10'],
    ]);
    expect(sent[0]!.headers).toMatchObject({
      'apns-push-type': 'liveactivity',
      'apns-topic': `${APNS_TOPIC}.push-type.liveactivity`,
      'apns-expiration': '0',
    });

    // Every device ends in the right state.
    const final = { ...fields, home: { name: 'Ajax', score: 1 }, away: { name: 'PSV', score: 1 }, period: 'Full time' };
    for (const device of [...modern, older]) {
      const activity = await h.deviceActivity(device, id);
      expect(activity).toMatchObject({ state: 'ended', contentState: final });
    }
    expect((await h.deviceActivity(modern[0]!, id)).channelId).toBe(channelId);
    // The iOS 17 device got its updates on its own token, the others none.
    const olderActivity = await h.deviceActivity(older, id);
    expect(
      h
        .apnsPushes(olderActivity.updateToken)
        .map((request) => (request.payload as { aps: { event: string } }).aps.event),
    ).toEqual(['update', 'update', 'end']);
    expect(
      JSON.parse((h.fcmPushes(android.token).at(-1)!.message as { data: { fields: string } }).data.fields),
    ).toEqual(final);

    // The channel is gone at APNs and marked deleted.
    expect(h.apns.channels.list(APNS_TOPIC).map((channel) => channel.id)).not.toContain(channelId);
    const row = await h.store.db
      .selectFrom('apns_broadcast_channels')
      .selectAll()
      .where('channel_id', '=', channelId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ live_activity_id: id, deleted_at: expect.any(Number) });
  });

  it('tokens: no channel, every iOS device per token', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const device = await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
      delivery: 'tokens',
    });
    expect(started.body.data).toMatchObject({
      delivery: 'tokens',
      recipientCounts: { broadcast: 0, tokens: 1 },
      deliveryModes: ['tokens'],
      channelId: null,
    });
    await h.settle();
    expect(h.apnsPushes(device.pushToStartToken!)[0]!.payload).toMatchObject({ aps: { 'input-push-token': 1 } });
  });

  it('broadcast: every iOS device on the channel, whatever version it reported', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const unknown = await h.iosDevice(account, 'match');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
      delivery: 'broadcast',
    });
    expect(started.body.data).toMatchObject({
      delivery: 'broadcast',
      recipientCounts: { broadcast: 1, tokens: 0 },
      deliveryModes: ['broadcast'],
    });
    await h.settle();
    const channelId = (await get(h.app, `/api/v1/live-activities/${started.body.data.id}`, account.secretKey)).body.data
      .channelId;
    expect(h.apnsPushes(unknown.pushToStartToken!)[0]!.payload).toMatchObject({
      aps: { 'input-push-channel': channelId },
    });
  });

  it('restarts the broadcast part per token when APNs no longer knows the channel (ChannelNotRegistered), and goes on per token', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const modern = await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const older = await h.iosDevice(account, 'match', { osVersion: '17.5' });
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
    });
    const id = started.body.data.id as string;
    await h.settle();
    const channelId = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data
      .channelId as string;
    // The channel is gone at APNs (deleted by someone else): the next broadcast answers ChannelNotRegistered.
    h.apns.channels.delete(APNS_TOPIC, channelId);

    h.clock.advance(1_000);
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { home: { score: 1 } } }))
        .statusCode,
    ).toBe(200);
    await h.settle();
    expect(
      broadcasts()
        .filter((request) => request.channelId === channelId)
        .map((request) => request.reason),
    ).toEqual(['ChannelNotRegistered']);
    // The device that was on the channel is started again per token, with the current state; the other keeps its own.
    const restarts = h.apnsPushes(modern.pushToStartToken!).slice(1);
    expect(restarts.map((request) => request.payload)).toEqual([
      expect.objectContaining({
        aps: expect.objectContaining({
          event: 'start',
          'input-push-token': 1,
          'content-state': { ...fields, home: { name: 'Ajax', score: 1 }, clarionReceipt: expect.stringMatching(/^a/) },
        }),
      }),
    ]);
    expect(h.apnsPushes(older.pushToStartToken!)).toHaveLength(1);
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data).toMatchObject({
      channelId: null,
      deliveryModes: ['tokens'],
      recipientCounts: { broadcast: 0, tokens: 2 },
    });

    // Later events reach it on the token it reported.
    h.clock.advance(1_000);
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, { fields: { period: 'Full time' } }))
        .statusCode,
    ).toBe(200);
    await h.settle();
    const restarted = h.apns.liveActivities.find(
      (activity) =>
        activity.pushToStartToken === modern.pushToStartToken &&
        activity.channelId === null &&
        activity.attributes.activityId === id,
    );
    expect(restarted).toMatchObject({
      state: 'ended',
      contentState: { ...fields, home: { name: 'Ajax', score: 1 }, period: 'Full time' },
    });
    expect(broadcasts().filter((request) => request.channelId === channelId)).toHaveLength(1);
  });

  it('falls back to tokens when APNs has no room for another channel, and says so in the record', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const device = await h.iosDevice(account, 'match', { osVersion: '18.2' });
    h.apns.channels.setLimit(h.apns.channels.list(APNS_TOPIC).length);
    try {
      const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'match',
        template: 'score',
        fields,
      });
      await h.settle();
      const record = (await get(h.app, `/api/v1/live-activities/${started.body.data.id}`, account.secretKey)).body.data;
      expect(record).toMatchObject({
        channelId: null,
        recipientCounts: { broadcast: 0, tokens: 1 },
        deliveryModes: ['tokens'],
      });
      expect(h.apnsPushes(device.pushToStartToken!)[0]!.payload).toMatchObject({ aps: { 'input-push-token': 1 } });
    } finally {
      h.apns.channels.setLimit(10_000);
    }
  });

  it('the sweeper deletes the channel of an ended activity a crash left, and leaves channels Clarion did not create alone', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
    });
    await h.settle();
    const id = started.body.data.id as string;
    const channelId = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data
      .channelId as string;
    // A crash: the activity was ended but its channel's deletion never ran. And a channel of the same bundle id that
    // another backend created: Apple keeps it until its owner deletes it.
    await h.store.db
      .updateTable('live_activities')
      .set({ status: 'ended', ended_at: h.clock.now() })
      .where('id', '=', id)
      .execute();
    const foreign = h.apns.channels.create(APNS_TOPIC, 1, h.clock.now())!;

    const sweep = async () => {
      await h.store.db.transaction().execute((trx) => sweepLiveActivityChannelsJob.enqueue(h.queue, trx, {}));
      await h.settle();
    };
    await sweep();
    const left = () => h.apns.channels.list(APNS_TOPIC).map((channel) => channel.id);
    expect(left()).not.toContain(channelId);
    h.clock.advance(11 * 60_000);
    await sweep();
    // Only CLARION_APNS_DELETE_UNKNOWN_CHANNELS=true deletes channels Clarion has no record of (broadcast-per-app.test.ts).
    expect(left()).toContain(foreign.id);
    expect(
      h.apns.requests.filter((request) => request.method === 'DELETE' && request.channelId === foreign.id),
    ).toEqual([]);
  });
});
