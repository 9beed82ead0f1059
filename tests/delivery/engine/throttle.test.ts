import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification as waitForFinal,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** A throttled send end to end: its fan-out goes out at the pace asked for, with the clock moved instead of waited for. */
let h: DeliveryHarness;
beforeAll(async () => {
  // A database of its own on PostgreSQL: this file moves its clock, and other files' workers must not claim its jobs.
  h = await startDeliveryHarness({ isolatedDatabase: true });
});
afterAll(async () => h?.close());

const SUBSCRIBERS = [7101, 7102, 7103, 7104, 7105];
const deliveredSoFar = () =>
  h.fcm.requests.filter(
    (request) => request.status === 200 && SUBSCRIBERS.some((n) => request.target?.value === androidToken(n)),
  ).length;

/** Moves the clock by `ms`, then waits until `count` pushes have gone out and the worker has nothing more due. */
async function advance(ms: number, count: number) {
  h.clock.advance(ms);
  h.worker.pool.wake();
  await waitFor(() => deliveredSoFar() >= count, 10_000, `${count} pushes`);
  await h.worker.pool.whenIdle();
  expect(deliveredSoFar()).toBe(count);
}

describe('a throttled send', () => {
  it('sends at most throttlePerMinute pushes a minute, and says when it will finish', async () => {
    const account = await h.newAccount({ channels: ['deals'] });
    for (const n of SUBSCRIBERS) {
      const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'deals',
        platform: 'android',
        token: androidToken(n),
      });
      expect(response.statusCode).toBe(201);
    }
    const start = h.clock.now();
    // 2 a minute: one push every 30 s, five pushes over 2.5 minutes.
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'deals',
      title: 'Sale',
      throttlePerMinute: 2,
    });
    expect(sent.statusCode).toBe(201);
    const id = sent.body.data.id as string;
    expect(sent.body.data).toMatchObject({
      throttlePerMinute: 2,
      expectedFinishAt: new Date(start + 150_000).toISOString(),
    });

    await advance(0, 1);
    expect((await get(h.app, `/api/v1/notifications/${id}`, account.secretKey)).body.data).toMatchObject({
      status: 'sending',
      stats: { delivered: 1, pending: 4 },
    });
    await advance(29_000, 1);
    await advance(1_000, 2);
    await advance(60_000, 4);
    await advance(30_000, 5);
    expect(await waitForFinal(h, account.secretKey, id)).toMatchObject({ status: 'sent', stats: { delivered: 5 } });

    // Without a throttle, the same channel gets everything at once.
    const fast = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'deals', title: 'Now' });
    expect(fast.body.data.expectedFinishAt).toBeNull();
    expect(await waitForFinal(h, account.secretKey, fast.body.data.id)).toMatchObject({ stats: { delivered: 5 } });
  });
});
