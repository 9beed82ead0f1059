import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepLiveActivityChannelsJob } from '../../../src/delivery/live-activities/live-activity-jobs.ts';
import { createApnsSigningKey } from '../../../tools/fakes/index.ts';
import { get, post } from '../../harness/requests.ts';
import { APNS_TOPIC } from '../engine/delivery-harness.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Broadcast per app (docs/apps.md, docs/live-activities.md "Broadcast"): a channel bound to an app creates its APNs
 * channel, broadcasts and deletes it with that app's key and bundle id, never the instance's; the sweeper visits the
 * app's channels too. This file's instance opts in to deleting channels it has no record of
 * (CLARION_APNS_DELETE_UNKNOWN_CHANNELS); broadcast.test.ts runs with the default, which leaves them alone.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness({ configure: { apnsDeleteUnknownChannels: true } });
});
afterAll(async () => h?.close());

const fields = { title: 'Ajax – PSV', home: { name: 'Ajax', score: 0 }, away: { name: 'PSV', score: 0 } };

async function accountWithApp(n: number) {
  const account = await h.newAccount();
  const key = createApnsSigningKey();
  const bundleId = `com.broadcaster${n}.app`;
  for (const fake of [h.apns, h.apnsSandbox]) fake.addKey({ ...key, topics: [bundleId] });
  const app = await post(h.app, '/api/v1/apps', account.secretKey, {
    name: `Broadcaster ${n}`,
    ios: { key: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, bundleId },
  });
  expect(app.statusCode).toBe(201);
  const channel = await post(h.app, '/api/v1/channels', account.secretKey, { code: 'match' });
  expect(channel.body.data.appId).toBe(app.body.data.id);
  return { account, key, bundleId };
}

describe('Live Activity broadcast on a channel bound to an app', () => {
  it("creates the channel, broadcasts each update and the end once, and deletes it, all with the app's key and bundle id", async () => {
    const { account, key, bundleId } = await accountWithApp(1);
    const device = await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const before = h.apns.requests.length;

    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
      delivery: 'broadcast',
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    await h.settle();
    const channelId = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data
      .channelId as string;
    expect(channelId).toEqual(expect.any(String));
    expect(h.apns.channels.list(bundleId).map((channel) => channel.id)).toEqual([channelId]);
    expect(h.apnsPushes(device.pushToStartToken!)[0]!.payload).toMatchObject({
      aps: { event: 'start', 'input-push-channel': channelId },
    });

    for (const [path, body] of [
      ['update', { fields: { home: { score: 1 } } }],
      ['end', { fields: { period: 'Full time' } }],
    ] as const) {
      h.clock.advance(1_000);
      expect((await post(h.app, `/api/v1/live-activities/${id}/${path}`, account.secretKey, body)).statusCode).toBe(
        200,
      );
      await h.settle();
    }
    const requests = h.apns.requests.slice(before).filter((request) => request.kind !== 'device');
    const broadcasts = requests.filter((request) => request.kind === 'broadcast');
    expect(
      broadcasts.map((request) => [
        request.status,
        request.channelId,
        (request.payload as { aps: { event: string } }).aps.event,
        request.headers['apns-topic'],
      ]),
    ).toEqual([
      [200, channelId, 'update', `${bundleId}.push-type.liveactivity`],
      [200, channelId, 'end', `${bundleId}.push-type.liveactivity`],
    ]);
    // Create, broadcasts, delete: every request with the app's key; none with the instance's.
    expect(requests.map((request) => [request.method, request.kind, request.status])).toEqual([
      ['POST', 'channels', 201],
      ['POST', 'broadcast', 200],
      ['POST', 'broadcast', 200],
      ['DELETE', 'channels', 204],
    ]);
    for (const request of requests) expect([request.jwt?.iss, request.jwt?.kid]).toEqual([key.teamId, key.keyId]);
    // One cached connection per host (the registry's LRU), not one per job.
    for (const kind of ['channels', 'broadcast'] as const)
      expect(
        new Set(requests.filter((request) => request.kind === kind).map((request) => request.sessionId)).size,
      ).toBe(1);
    expect(h.apns.channels.list(bundleId)).toEqual([]);
    expect(await h.deviceActivity(device, id)).toMatchObject({
      state: 'ended',
      contentState: { home: { score: 1 }, period: 'Full time' },
    });
    expect(h.apns.channels.list(APNS_TOPIC).map((channel) => channel.id)).not.toContain(channelId);
  });

  it("the sweeper deletes an app's orphaned channels with the app's key, unknown ones too when told to", async () => {
    const { account, key, bundleId } = await accountWithApp(2);
    await h.iosDevice(account, 'match', { osVersion: '18.2' });
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
      delivery: 'broadcast',
    });
    await h.settle();
    const id = started.body.data.id as string;
    const channelId = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data
      .channelId as string;
    // A crash: the activity ended without its channel's deletion; and a channel APNs made that Clarion never recorded.
    await h.store.db
      .updateTable('live_activities')
      .set({ status: 'ended', ended_at: h.clock.now() })
      .where('id', '=', id)
      .execute();
    const stray = h.apns.channels.create(bundleId, 1, h.clock.now())!;
    const sweep = async () => {
      await h.store.db.transaction().execute((trx) => sweepLiveActivityChannelsJob.enqueue(h.queue, trx, {}));
      await h.settle();
    };
    const left = () => h.apns.channels.list(bundleId).map((channel) => channel.id);
    expect(left()).toEqual([channelId, stray.id]);
    await sweep();
    expect(left()).toEqual([stray.id]);
    h.clock.advance(11 * 60_000);
    await sweep();
    expect(left()).toEqual([]);
    const management = h.apns.requests.filter(
      (request) => request.kind === 'channels' && request.path.includes(bundleId),
    );
    for (const request of management) expect([request.status < 300, request.jwt?.kid]).toEqual([true, key.keyId]);
  });
});
