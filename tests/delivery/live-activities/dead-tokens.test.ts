import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/** What provider answers do to Live Activity tokens: 410s drop one token, never the subscriber; retries come back. */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const progress = (channelCode: string) => ({
  channelCode,
  template: 'progress',
  fields: { title: 'Upload', progress: 0.2 },
});

async function subscriber(id: string) {
  return h.store.db.selectFrom('subscribers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('dead Live Activity tokens', () => {
  it('drops only the activity token that answers 410, and keeps the subscriber', async () => {
    const account = await h.newAccount({ channels: ['uploads'] });
    const ios = await h.iosDevice(account, 'uploads');
    const other = await h.iosDevice(account, 'uploads');
    const id = (await post(h.app, '/api/v1/live-activities', account.secretKey, progress('uploads'))).body.data
      .id as string;
    await h.settle();
    const device = await h.deviceActivity(ios, id);
    const otherDevice = await h.deviceActivity(other, id);
    await waitFor(
      () => h.reporter.reports.filter((report) => report.liveActivityId === id).length === 2,
      10_000,
      'both token reports',
    );

    // The user dismissed the activity on one device: APNs answers 410 for its token from now on.
    h.apns.liveActivities.endActivity(device.updateToken);
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.5 } }))
        .statusCode,
    ).toBe(200);
    await h.settle();
    const [gone] = h.apnsPushes(device.updateToken);
    expect(gone).toMatchObject({ status: 410, reason: 'Unregistered' });
    expect(h.apnsPushes(otherDevice.updateToken)).toHaveLength(1);

    const tokens = await h.store.db
      .selectFrom('live_activity_tokens')
      .select('subscriber_id')
      .where('live_activity_id', '=', id)
      .execute();
    expect(tokens.map((row) => row.subscriber_id)).toEqual([other.subscriberId]);
    expect(await subscriber(ios.subscriberId)).toMatchObject({
      status: 'active',
      push_to_start_token: ios.pushToStartToken,
    });
    expect(
      (await listEvents(h.store.db, account.id)).filter((event) => event.type === 'subscriber.unsubscribed'),
    ).toEqual([]);

    // The next event skips the dropped token; the subscriber still gets notifications.
    await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, {});
    await h.settle();
    expect(h.apnsPushes(device.updateToken)).toHaveLength(1);
    expect(h.apnsPushes(otherDevice.updateToken).map((request) => (request.payload as any).aps.event)).toEqual([
      'update',
      'end',
    ]);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'uploads',
      title: 'Still here',
    });
    await waitFor(() => h.apnsPushes(ios.token).length === 1, 10_000, 'the notification to the subscriber');
    expect(sent.body.data.recipientCount).toBe(2);
  });

  it('forgets a push-to-start token that answers 410, and keeps the subscriber and its device token', async () => {
    const account = await h.newAccount({ channels: ['scores'] });
    const ios = await h.iosDevice(account, 'scores');
    h.apns.unregisterToken(ios.pushToStartToken!);
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, progress('scores'));
    expect(started.body.data.recipientCount).toBe(1);
    await h.settle();
    expect(h.apnsPushes(ios.pushToStartToken!).map((request) => request.status)).toEqual([410]);
    expect(await subscriber(ios.subscriberId)).toMatchObject({
      status: 'active',
      push_to_start_token: null,
      token: ios.token,
    });

    // Not targeted any more until the app registers a new push-to-start token.
    expect(
      (await post(h.app, '/api/v1/live-activities', account.secretKey, progress('scores'))).body.data.recipientCount,
    ).toBe(0);
    await h.settle();
    expect(h.apnsPushes(ios.pushToStartToken!)).toHaveLength(1);
  });

  it('unsubscribes an Android subscriber whose FCM token is unregistered, as for notifications', async () => {
    const account = await h.newAccount({ channels: ['deliveries'] });
    const android = await h.androidDevice(account, 'deliveries');
    h.fcm.setTokenOutcome(android.token, { errorCode: 'UNREGISTERED' });
    await post(h.app, '/api/v1/live-activities', account.secretKey, progress('deliveries'));
    await h.settle();
    expect(h.fcmPushes(android.token).map((request) => request.status)).toEqual([404]);
    expect(await subscriber(android.subscriberId)).toMatchObject({
      status: 'unsubscribed',
      unsubscribe_reason: 'token_unregistered',
    });
    const unsubscribed = (await listEvents(h.store.db, account.id)).filter(
      (event) => event.type === 'subscriber.unsubscribed',
    );
    expect(unsubscribed.map((event) => event.data)).toEqual([
      expect.objectContaining({ subscriberId: android.subscriberId, reason: 'token_unregistered' }),
    ]);
  });

  it('retries a push APNs could not take after its Retry-After, and gives up an update that a newer one replaced', async () => {
    const account = await h.newAccount({ channels: ['busy'] });
    const ios = await h.iosDevice(account, 'busy');
    const id = (await post(h.app, '/api/v1/live-activities', account.secretKey, progress('busy'))).body.data
      .id as string;
    await h.settle();
    const device = await h.deviceActivity(ios, id);
    await waitFor(() => h.reporter.reports.some((report) => report.liveActivityId === id), 10_000, 'the token report');

    // 429 with Retry-After: 30 s; the follow-up job waits for it. (A 5xx waits Apple's 15 minutes: apns-response.ts.)
    h.apns.setTokenOutcome(device.updateToken, { reason: 'TooManyRequests', retryAfterSeconds: 30 });
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.4 } });
    await h.settle();
    expect(h.apnsPushes(device.updateToken).map((request) => request.status)).toEqual([429]);
    h.apns.setTokenOutcome(device.updateToken, null);
    h.clock.advance(31_000);
    h.worker.pool.wake();
    await waitFor(() => h.apnsPushes(device.updateToken).length === 2, 10_000, 'the retried update');
    await h.settle();
    expect(
      h
        .apnsPushes(device.updateToken)
        .map((request) => [request.status, (request.payload as any).aps['content-state'].progress]),
    ).toEqual([
      [429, 0.4],
      [200, 0.4],
    ]);

    // A failed update that a newer event has overtaken is not retried: the device would ignore it as older.
    h.apns.setTokenOutcome(device.updateToken, { reason: 'TooManyRequests', retryAfterSeconds: 30 });
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.6 } });
    await h.settle();
    h.apns.setTokenOutcome(device.updateToken, null);
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.8 } });
    await h.settle();
    h.clock.advance(31_000);
    h.worker.pool.wake();
    await h.settle();
    expect(
      h
        .apnsPushes(device.updateToken)
        .map((request) => [request.status, (request.payload as any).aps['content-state'].progress]),
    ).toEqual([
      [429, 0.4],
      [200, 0.4],
      [429, 0.6],
      [200, 0.8],
    ]);
    expect(device.contentState).toEqual({ title: 'Upload', progress: 0.8 });
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data.fields.progress).toBe(0.8);
  });
});
