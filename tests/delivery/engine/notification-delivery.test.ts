import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  APNS_TOPIC,
  FCM_PROJECT,
  iosToken,
  finalNotification as waitForFinal,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** End to end through the HTTP API: accepted notifications reach the fake providers with the exact platform payloads. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

const register = (key: string, channelCode: string, platform: string, token: unknown) =>
  registerSubscriber(h, key, channelCode, platform, token);
const finalNotification = (key: string, id: string) => waitForFinal(h, key, id);

describe('notification delivery to APNs and FCM', () => {
  it('sends iOS and Android subscribers exactly the expected headers and payloads', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const ios = iosToken(1001);
    const android = androidToken(1001);
    await register(account.publishableKey, 'orders', 'ios', ios);
    await register(account.publishableKey, 'orders', 'android', android);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'orders',
      title: 'Order shipped',
      body: 'Your parcel is on its way',
      url: 'https://shop.example/orders/42',
      data: { orderId: '42' },
      badge: 3,
      sound: 'default',
      ttlSeconds: 3600,
    });
    expect(sent.statusCode).toBe(201);
    const id = sent.body.data.id as string;

    const final = await finalNotification(account.secretKey, id);
    expect(final).toMatchObject({ status: 'sent', recipientCount: 2, stats: { delivered: 2, failed: 0, pending: 0 } });

    const apnsRequest = h.apns.requests.find((request) => request.token === ios)!;
    expect(apnsRequest.status).toBe(200);
    expect(apnsRequest.headers['apns-push-type']).toBe('alert');
    expect(apnsRequest.handling).toEqual({ kind: 'shown' });
    expect(apnsRequest.headers['apns-topic']).toBe(APNS_TOPIC);
    expect(apnsRequest.headers['apns-priority']).toBe('10');
    expect(apnsRequest.headers['apns-collapse-id']).toBe(id);
    expect(Number(apnsRequest.headers['apns-expiration'])).toBe(Math.floor(h.clock.now() / 1000) + 3600);
    // The receipt (docs/engagement.md) beside the caller's data, with mutable-content so an extension can report it.
    expect(apnsRequest.payload).toEqual({
      aps: {
        alert: { title: 'Order shipped', body: 'Your parcel is on its way' },
        badge: 3,
        sound: 'default',
        'thread-id': 'orders',
        'mutable-content': 1,
      },
      url: 'https://shop.example/orders/42',
      orderId: '42',
      clarionReceipt: expect.stringMatching(/^n[0-9a-z]{52}[\w-]{22}$/),
    });

    const fcmRequest = h.fcm.requests.find((request) => request.target?.value === android)!;
    expect(fcmRequest.status).toBe(200);
    expect(fcmRequest.path).toBe(`/v1/projects/${FCM_PROJECT}/messages:send`);
    expect(fcmRequest.message).toMatchObject({
      token: android,
      notification: { title: 'Order shipped', body: 'Your parcel is on its way' },
      data: { url: 'https://shop.example/orders/42', orderId: '42' },
      android: { priority: 'HIGH', ttl: '3600s', notification: { tag: id } },
    });
  });

  it("carries the alert options to the platform that has them: iOS's aps keys, Android's notification channel", async () => {
    const account = await h.newAccount({ channels: ['alerts'] });
    const ios = iosToken(1002);
    const android = androidToken(1002);
    await register(account.publishableKey, 'alerts', 'ios', ios);
    await register(account.publishableKey, 'alerts', 'android', android);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'alerts',
      title: 'Door opened',
      subtitle: 'Front door',
      body: 'At 22:14',
      category: 'DOOR_EVENT',
      interruptionLevel: 'time-sensitive',
      relevanceScore: 0.9,
      targetContentId: 'cameras',
      androidChannelId: 'security',
    });
    expect(sent.statusCode).toBe(201);
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 2, failed: 0 } });

    expect(h.apns.requests.find((request) => request.token === ios)!.payload).toEqual({
      aps: {
        alert: { title: 'Door opened', subtitle: 'Front door', body: 'At 22:14' },
        'thread-id': 'alerts',
        category: 'DOOR_EVENT',
        'interruption-level': 'time-sensitive',
        'relevance-score': 0.9,
        'target-content-id': 'cameras',
        'mutable-content': 1,
      },
      clarionReceipt: expect.stringMatching(/^n[0-9a-z]{52}[\w-]{22}$/),
    });
    expect(h.fcm.requests.find((request) => request.target?.value === android)!.message).toEqual({
      token: android,
      notification: { title: 'Door opened', body: 'At 22:14' },
      data: { clarionReceipt: expect.stringMatching(/^n[0-9a-z]{52}[\w-]{22}$/) },
      android: { priority: 'HIGH', notification: { tag: sent.body.data.id, channel_id: 'security' } },
    });
  });

  it('unsubscribes dead tokens, lists the failures and records the events', async () => {
    const account = await h.newAccount({ channels: ['dead'] });
    const goneIos = iosToken(2001);
    const goneAndroid = androidToken(2001);
    const fine = androidToken(2002);
    const iosId = await register(account.publishableKey, 'dead', 'ios', goneIos);
    const androidId = await register(account.publishableKey, 'dead', 'android', goneAndroid);
    await register(account.publishableKey, 'dead', 'android', fine);
    h.apns.unregisterToken(goneIos);
    h.fcm.setTokenOutcome(goneAndroid, { errorCode: 'UNREGISTERED' });

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'dead', title: 'Hello' });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 1, failed: 2, pending: 0 } });

    const failures = await get(h.app, `/api/v1/notifications/${final.id}/failures`, account.secretKey);
    expect(failures.statusCode).toBe(200);
    expect(failures.body.data.map((f: any) => [f.subscriberId, f.platform, f.reason]).sort()).toEqual(
      [
        [iosId, 'ios', 'token_unregistered'],
        [androidId, 'android', 'token_unregistered'],
      ].sort(),
    );
    const channel = await get(h.app, '/api/v1/channels/dead', account.secretKey);
    expect(channel.body.data.subscriberCount).toEqual({ total: 1, ios: 0, android: 1, web: 0 });

    const events = await listEvents(h.store.db, account.id);
    const unsubscribed = events
      .filter((event) => event.type === 'subscriber.unsubscribed')
      .map((event) => event.data as any);
    expect(unsubscribed.map((data) => [data.subscriberId, data.reason]).sort()).toEqual(
      [
        [androidId, 'token_unregistered'],
        [iosId, 'token_unregistered'],
      ].sort(),
    );
    expect(
      events.filter((event) => event.type === 'delivery.failed').flatMap((event) => (event.data as any).failures),
    ).toHaveLength(2);
    const delivered = events.filter((event) => event.type === 'notification.delivered');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.data).toMatchObject({
      notificationId: final.id,
      delivered: 1,
      failed: 2,
      platforms: { ios: { delivered: 0, failed: 1 }, android: { delivered: 1, failed: 1 } },
    });
  });

  it("retries after the provider's Retry-After on 429 and 503, and ends with exact stats", async () => {
    const account = await h.newAccount({ channels: ['busy'] });
    const ios = iosToken(3001);
    const android = androidToken(3001);
    await register(account.publishableKey, 'busy', 'ios', ios);
    await register(account.publishableKey, 'busy', 'android', android);
    h.apns.setTokenOutcome(ios, { reason: 'TooManyRequests', retryAfterSeconds: 120 });
    h.fcm.setTokenOutcome(android, { errorCode: 'UNAVAILABLE', retryAfterSeconds: 90 });

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'busy', title: 'Later' });
    const id = sent.body.data.id as string;
    await waitFor(
      () => h.apns.requests.some((r) => r.token === ios) && h.fcm.requests.some((r) => r.target?.value === android),
      10_000,
      'first attempts',
    );
    const followUps = async () =>
      (
        await h.store.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', 'notification.send')
          .where('state', '=', 'available')
          .execute()
      ).filter((job) => JSON.parse(job.payload).notificationId === id);
    await waitFor(async () => (await followUps()).length === 2, 10_000, 'retry jobs');
    for (const job of await followUps()) {
      const payload = JSON.parse(job.payload);
      expect(payload.round).toBe(1);
      expect(job.run_at - h.clock.now()).toBeGreaterThanOrEqual(payload.platform === 'ios' ? 120_000 : 90_000);
    }
    expect((await get(h.app, `/api/v1/notifications/${id}`, account.secretKey)).body.data).toMatchObject({
      status: 'sending',
      stats: { delivered: 0, failed: 0, pending: 2 },
    });

    h.apns.setTokenOutcome(ios, null);
    h.fcm.setTokenOutcome(android, null);
    h.clock.advance(121_000);
    h.worker.pool.wake();
    const final = await finalNotification(account.secretKey, id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 2, failed: 0, pending: 0 } });
    expect(h.apns.requests.filter((r) => r.token === ios).map((r) => r.status)).toEqual([429, 200]);
    expect(h.fcm.requests.filter((r) => r.target?.value === android).map((r) => r.status)).toEqual([503, 200]);
  });

  it('counts ttlSeconds from the due time: a retry carries what is left, and a push past it is not sent (expired)', async () => {
    const account = await h.newAccount({ channels: ['ttl-soon', 'ttl-late'] });
    const soonIos = iosToken(6001);
    const soonAndroid = androidToken(6001);
    const lateIos = iosToken(6002);
    await register(account.publishableKey, 'ttl-soon', 'ios', soonIos);
    await register(account.publishableKey, 'ttl-soon', 'android', soonAndroid);
    const lateId = await register(account.publishableKey, 'ttl-late', 'ios', lateIos);
    h.apns.setTokenOutcome(soonIos, { reason: 'TooManyRequests', retryAfterSeconds: 30 });
    h.fcm.setTokenOutcome(soonAndroid, { errorCode: 'UNAVAILABLE', retryAfterSeconds: 30 });
    h.apns.setTokenOutcome(lateIos, { reason: 'TooManyRequests', retryAfterSeconds: 7200 });

    const dueAt = h.clock.now();
    const soon = (
      await post(h.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'ttl-soon',
        title: 'Flash sale',
        ttlSeconds: 60,
      })
    ).body.data.id as string;
    const late = (
      await post(h.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'ttl-late',
        title: 'Flash sale',
        ttlSeconds: 60,
      })
    ).body.data.id as string;
    // Retries only: due later than now. The first round's send jobs are 'available' too until a worker claims them, and
    // counting one of them (late's, say) as a retry would let the test clear its throttle before it was ever sent.
    const retryJobs = async () =>
      (
        await h.store.db
          .selectFrom('jobs')
          .select('payload')
          .where('kind', '=', 'notification.send')
          .where('state', '=', 'available')
          .where('run_at', '>', h.clock.now())
          .execute()
      ).filter((job) => [soon, late].includes(JSON.parse(job.payload).notificationId));
    await waitFor(async () => (await retryJobs()).length === 3, 10_000, 'retry jobs');
    h.apns.setTokenOutcome(soonIos, null);
    h.fcm.setTokenOutcome(soonAndroid, null);
    h.apns.setTokenOutcome(lateIos, null);

    // 31 s later: delivered, with the deadline fixed at the due time + 60 s, not now + 60 s.
    h.clock.advance(31_000);
    h.worker.pool.wake();
    expect(await finalNotification(account.secretKey, soon)).toMatchObject({
      status: 'sent',
      stats: { delivered: 2, failed: 0, pending: 0 },
    });
    const [firstIos, retryIos] = h.apns.requests.filter((r) => r.token === soonIos);
    expect(firstIos!.headers['apns-expiration']).toBe(String(Math.floor((dueAt + 60_000) / 1000)));
    expect(retryIos!.headers['apns-expiration']).toBe(String(Math.floor((dueAt + 60_000) / 1000)));
    const [firstFcm, retryFcm] = h.fcm.requests.filter((r) => r.target?.value === soonAndroid) as any[];
    expect(firstFcm.message.android.ttl).toBe('60s');
    expect(retryFcm.message.android.ttl).toBe('29s');

    // Two hours later the other retry finds its push expired: nothing is sent, it fails as expired.
    h.clock.advance(7_200_000);
    h.worker.pool.wake();
    expect(await finalNotification(account.secretKey, late)).toMatchObject({
      status: 'failed',
      stats: { delivered: 0, failed: 1, pending: 0 },
    });
    expect(h.apns.requests.filter((r) => r.token === lateIos)).toHaveLength(1);
    const failures = await get(h.app, `/api/v1/notifications/${late}/failures`, account.secretKey);
    expect(failures.body.data).toEqual([expect.objectContaining({ subscriberId: lateId, reason: 'expired' })]);
  });

  it("keeps a subscriber whose token was registered again after APNs' 410 timestamp", async () => {
    const account = await h.newAccount({ channels: ['rereg'] });
    const renewed = iosToken(7001);
    const gone = iosToken(7002);
    const renewedId = await register(account.publishableKey, 'rereg', 'ios', renewed);
    const goneId = await register(account.publishableKey, 'rereg', 'ios', gone);
    // APNs last knew `renewed` invalid a minute before the device registered it (again); `gone` only after its registration.
    h.apns.unregisterToken(renewed, h.clock.now() - 60_000);
    h.apns.unregisterToken(gone, h.clock.now() + 60_000);
    h.clock.advance(120_000);

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'rereg', title: 'Hi' });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'failed', stats: { delivered: 0, failed: 2 } });
    const status = async (id: string) =>
      (await h.store.db.selectFrom('subscribers').select('status').where('id', '=', id).executeTakeFirstOrThrow())
        .status;
    expect(await status(renewedId)).toBe('active');
    expect(await status(goneId)).toBe('unsubscribed');
  });

  it('completes a notification to a channel without subscribers at once', async () => {
    const account = await h.newAccount({ channels: ['empty'] });
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'empty',
      title: 'Nobody',
    });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'sent', recipientCount: 0, stats: { delivered: 0, failed: 0, pending: 0 } });
    const events = await listEvents(h.store.db, account.id);
    expect(events.filter((event) => event.type === 'notification.delivered').map((event) => event.data)).toEqual([
      expect.objectContaining({ notificationId: sent.body.data.id, recipientCount: 0, delivered: 0, failed: 0 }),
    ]);
  });

  it('does not unsubscribe a whole batch that answers DeviceTokenNotForTopic: it is our topic that is wrong', async () => {
    const account = await h.newAccount({ channels: ['wrong-topic'] });
    const tokens = Array.from({ length: 12 }, (_, i) => iosToken(4000 + i));
    for (const token of tokens) {
      await register(account.publishableKey, 'wrong-topic', 'ios', token);
      h.apns.setTokenTopic(token, 'com.example.other-app');
    }
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'wrong-topic',
      title: 'Hi',
    });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'failed', stats: { delivered: 0, failed: 12 } });
    const channel = await get(h.app, '/api/v1/channels/wrong-topic', account.secretKey);
    expect(channel.body.data.subscriberCount.ios).toBe(12);
    expect(h.logs.some((line) => String(line.msg).includes('CLARION_APNS_TOPIC'))).toBe(true);
  });

  it('holds a scheduled notification until its time comes on the clock', async () => {
    const account = await h.newAccount({ channels: ['later'] });
    const ios = iosToken(5001);
    await register(account.publishableKey, 'later', 'ios', ios);
    const sendAt = new Date(h.clock.now() + 10 * 60_000).toISOString();
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'later',
      title: 'Reminder',
      sendAt,
    });
    expect(sent.body.data).toMatchObject({ status: 'scheduled', sendAt });
    // The worker has looked for due jobs since the send and found none: only now does "nothing sent" mean something.
    await h.worker.pool.whenIdle();
    expect(h.apns.requests.some((request) => request.token === ios)).toBe(false);
    h.clock.advance(10 * 60_000);
    h.worker.pool.wake();
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 1 } });
  });
});
