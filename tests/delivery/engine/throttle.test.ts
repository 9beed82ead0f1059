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

  it("takes its app's default throttle when it gives none, and shows it; a send's own throttle wins", async () => {
    const account = await h.newAccount();
    const serviceAccount = h.fcm.createServiceAccount('paced-tenant');
    const app = await post(h.app, '/api/v1/apps', account.secretKey, {
      name: 'Paced',
      android: { serviceAccount: serviceAccount.json },
      throttlePerMinute: 2,
    });
    expect(app.statusCode).toBe(201);
    expect(app.body.data.throttlePerMinute).toBe(2);
    expect((await post(h.app, '/api/v1/channels', account.secretKey, { code: 'paced' })).body.data.appId).toBe(
      app.body.data.id,
    );
    const tokens = [7201, 7202, 7203].map((n) => androidToken(n));
    for (const token of tokens) {
      const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'paced',
        platform: 'android',
        token,
      });
      expect(response.statusCode).toBe(201);
    }
    const deliveredTo = () =>
      h.fcm.requests.filter((request) => request.status === 200 && tokens.includes(String(request.target?.value)))
        .length;
    const start = h.clock.now();
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'paced', title: 'Hi' });
    expect(sent.body.data.throttlePerMinute).toBeNull();
    h.worker.pool.wake();
    await waitFor(() => deliveredTo() >= 1, 10_000, 'the first push');
    await h.worker.pool.whenIdle();
    expect(deliveredTo()).toBe(1);
    expect((await get(h.app, `/api/v1/notifications/${sent.body.data.id}`, account.secretKey)).body.data).toMatchObject(
      {
        throttlePerMinute: 2,
        expectedFinishAt: new Date(start + 90_000).toISOString(),
      },
    );
    h.clock.advance(60_000);
    h.worker.pool.wake();
    expect(await waitForFinal(h, account.secretKey, sent.body.data.id)).toMatchObject({ stats: { delivered: 3 } });

    // Its own throttle: 600 a minute is ten pushes a batch, so all three go at once.
    const own = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'paced',
      title: 'Own pace',
      throttlePerMinute: 600,
    });
    expect(await waitForFinal(h, account.secretKey, own.body.data.id)).toMatchObject({
      throttlePerMinute: 600,
      stats: { delivered: 3 },
    });
  });
});
