import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification as waitForFinal,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** A channel's quiet hours end to end, in each subscriber's own time zone, with the clock moved instead of waited for. */
let h: DeliveryHarness;
beforeAll(async () => {
  // A database of its own on PostgreSQL: this file moves its clock, and other files' workers must not claim its jobs.
  h = await startDeliveryHarness({ isolatedDatabase: true });
});
afterAll(async () => h?.close());

const received = (n: number, title: string) =>
  h.fcm.requests.filter(
    (request) =>
      request.status === 200 &&
      request.target?.value === androidToken(n) &&
      (request.message as { notification?: { title?: string } }).notification?.title === title,
  ).length;

describe("a channel's quiet hours", () => {
  it('hold each subscriber inside them until they end in its own zone; ignoreQuietHours and expiry are honoured', async () => {
    // 21:30 UTC: 22:30 in Berlin and 06:30 in Tokyo (inside 22:00–07:00), 16:30 in New York (outside).
    h.clock.set(Date.parse('2026-01-10T21:30:00Z'));
    const account = await h.newAccount({ channels: ['news'] });
    const register = async (n: number, timezone?: string) => {
      const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'news',
        platform: 'android',
        token: androidToken(n),
        ...(timezone ? { timezone } : {}),
      });
      expect(response.statusCode).toBe(201);
      return response.body.data.id as string;
    };
    const berlin = await register(6101, 'Europe/Berlin');
    await register(6102, 'America/New_York');
    const tokyo = await register(6103, 'Asia/Tokyo');
    // Without a zone: the account's default, UTC here (21:30, outside).
    await register(6104);
    const quiet = { start: '22:00', end: '07:00' };
    const updated = await post(h.app, '/api/v1/channels/news/update', account.secretKey, { quietHours: quiet });
    expect(updated.body.data.quietHours).toEqual(quiet);

    const send = async (body: Record<string, unknown>) => {
      const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', ...body });
      expect(sent.statusCode).toBe(201);
      return sent.body.data.id as string;
    };
    const read = async (id: string) => (await get(h.app, `/api/v1/notifications/${id}`, account.secretKey)).body.data;

    const evening = await send({ title: 'Evening news' });
    await waitFor(async () => (await read(evening)).stats.held === 2, 10_000, 'two recipients held');
    expect(await read(evening)).toMatchObject({
      status: 'sending',
      stats: { delivered: 2, failed: 0, skipped: 0, pending: 2, held: 2 },
    });
    expect([6101, 6102, 6103, 6104].map((n) => received(n, 'Evening news'))).toEqual([0, 1, 0, 1]);

    // An alarm goes out to everyone at once.
    const alarm = await send({ title: 'Storm warning', ignoreQuietHours: true });
    expect((await waitForFinal(h, account.secretKey, alarm)).stats).toMatchObject({ delivered: 4, held: 0 });

    // A push that would expire before the quiet hours end fails as expired instead of waiting.
    const flash = await send({ title: 'Flash sale', ttlSeconds: 600 });
    const flashed = await waitForFinal(h, account.secretKey, flash);
    expect(flashed).toMatchObject({ status: 'sent', stats: { delivered: 2, failed: 2, held: 0 } });
    const failures = (await get(h.app, `/api/v1/notifications/${flash}/failures`, account.secretKey)).body.data;
    expect(failures.map((failure: any) => [failure.subscriberId, failure.reason]).sort()).toEqual(
      [
        [berlin, 'expired'],
        [tokyo, 'expired'],
      ].sort(),
    );

    // 07:00 in Tokyo: its subscriber gets the evening news; Berlin still waits.
    h.clock.set(Date.parse('2026-01-10T22:00:00Z'));
    h.worker.pool.wake();
    await waitFor(() => received(6103, 'Evening news') === 1, 10_000, 'Tokyo at 07:00');
    await h.worker.pool.whenIdle();
    expect(received(6101, 'Evening news')).toBe(0);
    expect((await read(evening)).stats).toMatchObject({ delivered: 3, pending: 1, held: 1 });

    // 07:00 in Berlin.
    h.clock.set(Date.parse('2026-01-11T06:00:00Z'));
    h.worker.pool.wake();
    const final = await waitForFinal(h, account.secretKey, evening);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 4, failed: 0, pending: 0, held: 0 } });
    expect([6101, 6102, 6103, 6104].map((n) => received(n, 'Evening news'))).toEqual([1, 1, 1, 1]);
  });
});
