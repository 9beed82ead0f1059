import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * FCM's per-project quota (tools/fakes/fcm/fcm-project-quota.ts): once a project has used its minute, every message
 * of it is answered 429 until the minute passes, whichever batch or device it is for.
 */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

describe('FCM project quota', () => {
  it('backs off every batch of the project after a 429 for its quota, then delivers all once the minute is over', async () => {
    const account = await h.newAccount({ channels: ['first', 'second'] });
    for (let n = 0; n < 5; n += 1)
      await registerSubscriber(h, account.publishableKey, 'first', 'android', androidToken(9000 + n));
    for (let n = 0; n < 4; n += 1)
      await registerSubscriber(h, account.publishableKey, 'second', 'android', androidToken(9100 + n));
    h.fcm.setMessagesPerMinutePerProject(3);

    const first = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'first', title: 'One' });
    await waitFor(() => h.fcm.requests.some((request) => request.status === 429), 10_000, 'the quota to run out');
    await h.worker.pool.whenIdle();
    const afterFirst = h.fcm.requests.length;
    // Another batch of the same project, while the quota is still out: nothing is sent to FCM for it.
    const second = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'second',
      title: 'Two',
    });
    await waitFor(
      async () =>
        (
          await h.store.db
            .selectFrom('jobs')
            .select('id')
            .where('kind', '=', 'notification.send')
            .where('state', '=', 'available')
            .execute()
        ).length >= 2,
      10_000,
      'both batches to wait for their retry',
    );
    await h.worker.pool.whenIdle();
    expect(h.fcm.requests.slice(afterFirst)).toEqual([]);

    h.fcm.setMessagesPerMinutePerProject(600_000);
    h.clock.advance(61_000);
    h.worker.pool.wake();
    expect(await finalNotification(h, account.secretKey, first.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 5, failed: 0 },
    });
    expect(await finalNotification(h, account.secretKey, second.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 4, failed: 0 },
    });
  });
});
