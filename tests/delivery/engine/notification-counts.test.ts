import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification,
  iosToken,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** recipients = delivered + failed + skipped + pending on every notification, and a failed one says why. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

const addsUp = (n: any) => n.stats.delivered + n.stats.failed + n.stats.skipped + n.stats.pending === n.recipientCount;

describe('notification counts', () => {
  it('counts a subscriber that unsubscribed between acceptance and the dispatch as skipped', async () => {
    const account = await h.newAccount({ channels: ['later'] });
    const ids = [];
    for (let n = 0; n < 3; n += 1)
      ids.push(await registerSubscriber(h, account.publishableKey, 'later', 'android', androidToken(7000 + n)));
    const sendAt = new Date(h.clock.now() + 60_000).toISOString();
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'later',
      title: 'Soon',
      sendAt,
    });
    expect(sent.body.data).toMatchObject({
      recipientCount: 3,
      stats: { delivered: 0, failed: 0, skipped: 0, pending: 3 },
    });
    expect((await post(h.app, `/api/v1/subscribers/${ids[1]}/unsubscribe`, account.secretKey)).statusCode).toBe(200);
    h.clock.advance(60_000);
    h.worker.pool.wake();
    const final = await finalNotification(h, account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({
      status: 'sent',
      recipientCount: 3,
      failureReason: null,
      stats: { delivered: 2, failed: 0, skipped: 1, pending: 0 },
    });
    expect(h.fcm.requests.some((request) => request.target?.value === androidToken(7001))).toBe(false);
    const delivered = (await listEvents(h.store.db, account.id)).find(
      (event) => event.type === 'notification.delivered',
    );
    expect(delivered?.data).toMatchObject({ recipientCount: 3, delivered: 2, failed: 0, skipped: 1 });
  });

  it('counts a subscriber that unsubscribed while its push waited for a retry as skipped, not failed', async () => {
    const account = await h.newAccount({ channels: ['busy'] });
    const waiting = androidToken(7101);
    const waitingId = await registerSubscriber(h, account.publishableKey, 'busy', 'android', waiting);
    await registerSubscriber(h, account.publishableKey, 'busy', 'android', androidToken(7102));
    h.fcm.setTokenOutcome(waiting, { errorCode: 'UNAVAILABLE', retryAfterSeconds: 90 });
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'busy', title: 'Retry' });
    const id = sent.body.data.id as string;
    await waitFor(
      async () => (await get(h.app, `/api/v1/notifications/${id}`, account.secretKey)).body.data.stats.delivered === 1,
      10_000,
      'the first round',
    );
    const during = (await get(h.app, `/api/v1/notifications/${id}`, account.secretKey)).body.data;
    expect(during).toMatchObject({ status: 'sending', stats: { delivered: 1, failed: 0, skipped: 0, pending: 1 } });
    expect(addsUp(during)).toBe(true);

    expect((await post(h.app, `/api/v1/subscribers/${waitingId}/unsubscribe`, account.secretKey)).statusCode).toBe(200);
    h.fcm.setTokenOutcome(waiting, null);
    h.clock.advance(91_000);
    h.worker.pool.wake();
    const final = await finalNotification(h, account.secretKey, id);
    expect(final).toMatchObject({
      status: 'sent',
      recipientCount: 2,
      stats: { delivered: 1, failed: 0, skipped: 1, pending: 0 },
    });
    expect(h.fcm.requests.filter((request) => request.target?.value === waiting)).toHaveLength(1);
    expect((await get(h.app, `/api/v1/notifications/${id}/failures`, account.secretKey)).body.data).toEqual([]);
  });

  it('gives a notification whose every push failed the reason they failed with', async () => {
    const account = await h.newAccount({ channels: ['gone'] });
    const tokens = [iosToken(7201), iosToken(7202)];
    for (const token of tokens) {
      await registerSubscriber(h, account.publishableKey, 'gone', 'ios', token);
      h.apns.unregisterToken(token);
    }
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'gone',
      title: 'Nobody home',
    });
    const final = await finalNotification(h, account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({
      status: 'failed',
      failureReason: 'token_unregistered',
      recipientCount: 2,
      stats: { delivered: 0, failed: 2, skipped: 0, pending: 0 },
    });
    const listed = (await get(h.app, '/api/v1/notifications?channelCode=gone', account.secretKey)).body.data;
    expect(listed[0]).toMatchObject({ failureReason: 'token_unregistered', stats: { skipped: 0, pending: 0 } });
  });
});
