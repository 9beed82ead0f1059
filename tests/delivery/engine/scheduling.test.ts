import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../../src/worker.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { androidToken, iosToken, startDeliveryHarness, type DeliveryHarness } from './delivery-harness.ts';

/** Scheduled and local-time delivery on the durable queue, with the clock moved instead of waited for. */
let h: DeliveryHarness;
beforeAll(async () => {
  // A database of its own on PostgreSQL: this file moves its clock months away, and on the shared one other files'
  // workers would claim these jobs (pushing to their own fakes) while this worker sat idle, so "nothing was pushed"
  // would prove nothing.
  h = await startDeliveryHarness({ isolatedDatabase: true });
});
afterAll(async () => {
  // h.close() stops the worker the harness started; the outage tests replace it (restartWorker), so stop the current one.
  await h?.worker.stop(1_000);
  await h?.close();
});

const HOUR = 3_600_000;
const notification = async (key: string, id: string) =>
  (await get(h.app, `/api/v1/notifications/${id}`, key)).body.data;
const received = (token: string) =>
  h.apns.requests.some((r) => r.token === token && r.status === 200) ||
  h.fcm.requests.some((r) => r.target?.value === token && r.status === 200);

async function register(
  key: string,
  channelCode: string,
  platform: 'ios' | 'android',
  token: string,
  timezone?: string,
) {
  const response = await post(h.app, '/api/v1/subscribers', key, {
    channelCode,
    platform,
    token,
    ...(timezone ? { timezone } : {}),
  });
  expect(response.statusCode).toBe(201);
}

/** Starts a new worker on the same queue, as a restarted `clarion serve` would (the previous one was stopped). */
async function restartWorker() {
  h.worker = await startDeliveryWorker({
    store: h.store,
    queue: h.queue,
    clock: h.clock,
    config: h.config,
    logger: pino({ level: 'silent' }),
    providers: h.providers,
    secretKey: h.secretKey,
  });
}

/**
 * Moves the clock, waits until the pushes due by now have gone out, and then until the worker is idle, so that
 * whatever else it would (wrongly) send by this time has been sent before the test asserts it was not.
 */
async function advanceTo(iso: string, expectReceived: string[]) {
  h.clock.set(Date.parse(iso));
  h.worker.pool.wake();
  await waitFor(() => expectReceived.every(received), 10_000, `pushes due by ${iso}`);
  await h.worker.pool.whenIdle();
}

describe('scheduled delivery', () => {
  it('delivers at 09:00 local time in each subscriber zone, across a daylight-saving change', async () => {
    // Saturday 2026-03-28 12:00 UTC: Europe/Berlin moves to summer time at 01:00 UTC on Sunday 2026-03-29.
    h.clock.set(Date.parse('2026-03-28T12:00:00Z'));
    const account = await h.newAccount({ channels: ['morning'] });
    const berlin = iosToken(8001);
    const newYork = androidToken(8002);
    const tokyo = iosToken(8003);
    const noZone = androidToken(8004);
    await register(account.publishableKey, 'morning', 'ios', berlin, 'Europe/Berlin');
    await register(account.publishableKey, 'morning', 'android', newYork, 'America/New_York');
    await register(account.publishableKey, 'morning', 'ios', tokyo, 'Asia/Tokyo');
    await register(account.publishableKey, 'morning', 'android', noZone);

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'morning',
      title: 'Good morning',
      deliverAtLocalTime: '09:00',
    });
    expect(sent.statusCode).toBe(201);
    expect(sent.body.data).toMatchObject({ status: 'scheduled', deliverAtLocalTime: '09:00', recipientCount: 4 });
    const id = sent.body.data.id as string;
    const dueTimes = (
      await h.store.db
        .selectFrom('jobs')
        .select(['payload', 'run_at'])
        .where('kind', '=', 'notification.dispatch')
        .execute()
    )
      .filter((job) => JSON.parse(job.payload).notificationId === id)
      .map((job) => [JSON.parse(job.payload).timezone, new Date(job.run_at).toISOString()])
      .sort();
    expect(dueTimes).toEqual(
      [
        [null, '2026-03-29T09:00:00.000Z'],
        ['America/New_York', '2026-03-28T13:00:00.000Z'],
        ['Asia/Tokyo', '2026-03-29T00:00:00.000Z'],
        ['Europe/Berlin', '2026-03-29T07:00:00.000Z'],
      ].sort(),
    );

    await advanceTo('2026-03-28T13:00:00Z', [newYork]);
    expect([berlin, tokyo, noZone].some(received)).toBe(false);
    await advanceTo('2026-03-29T00:00:00Z', [tokyo]);
    expect([berlin, noZone].some(received)).toBe(false);
    await advanceTo('2026-03-29T07:00:00Z', [berlin]);
    expect(received(noZone)).toBe(false);
    expect((await notification(account.secretKey, id)).status).toBe('sending');
    await advanceTo('2026-03-29T09:00:00Z', [noZone]);
    await waitFor(async () => (await notification(account.secretKey, id)).status === 'sent', 10_000, 'sent');
    expect((await notification(account.secretKey, id)).stats).toMatchObject({
      delivered: 4,
      failed: 0,
      skipped: 0,
      pending: 0,
      held: 0,
    });
  });

  it('sends a scheduled notification after a worker outage that spans its due time', async () => {
    h.clock.set(Date.parse('2026-06-01T10:00:00Z'));
    const account = await h.newAccount({ channels: ['outage'] });
    const token = iosToken(8101);
    await register(account.publishableKey, 'outage', 'ios', token);
    await h.worker.stop(100);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'outage',
      title: 'Later',
      sendAt: '2026-06-01T11:00:00Z',
    });
    h.clock.advance(3 * HOUR);
    await restartWorker();
    await waitFor(
      async () => (await notification(account.secretKey, sent.body.data.id)).status === 'sent',
      10_000,
      'sent after restart',
    );
    expect(received(token)).toBe(true);
  });

  it('fails a scheduled notification whose ttlSeconds passed during an outage, with reason expired, and pushes nothing', async () => {
    h.clock.set(Date.parse('2026-06-02T10:00:00Z'));
    const account = await h.newAccount({ channels: ['stale'] });
    const token = androidToken(8201);
    await register(account.publishableKey, 'stale', 'android', token);
    await h.worker.stop(100);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'stale',
      title: 'Flash sale',
      sendAt: '2026-06-02T10:10:00Z',
      ttlSeconds: 600,
    });
    h.clock.advance(HOUR);
    await restartWorker();
    let final: any;
    await waitFor(
      async () => (final = await notification(account.secretKey, sent.body.data.id)).status === 'failed',
      10_000,
      'expired',
    );
    expect(final).toMatchObject({ failureReason: 'expired', stats: { delivered: 0, failed: 1, pending: 0 } });
    const failures = await get(h.app, `/api/v1/notifications/${final.id}/failures`, account.secretKey);
    expect(failures.body.data.map((failure: any) => failure.reason)).toEqual(['expired']);
    expect(received(token)).toBe(false);
  });

  it('cancels a scheduled notification before it is sent and refunds its quota unit', async () => {
    h.clock.set(Date.parse('2026-06-03T10:00:00Z'));
    const account = await h.newAccount({ channels: ['cancel'] });
    const token = iosToken(8301);
    await register(account.publishableKey, 'cancel', 'ios', token);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'cancel',
      title: 'Never',
      sendAt: '2026-06-03T12:00:00Z',
    });
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
    const canceled = await post(h.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey);
    expect(canceled.statusCode).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', canceledAt: '2026-06-03T10:00:00.000Z' });
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);
    h.clock.advance(3 * HOUR);
    // Past its time: the worker has looked for due jobs with the clock as it is now and run all it found.
    await h.worker.pool.whenIdle();
    expect(received(token)).toBe(false);
    expect(
      (await post(h.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey)).body.error.code,
    ).toBe('not_cancelable');
  });

  it('cancels the zones not yet sent of a local-time notification, keeps what was sent, refunds nothing', async () => {
    h.clock.set(Date.parse('2026-06-04T00:00:00Z'));
    const account = await h.newAccount({ channels: ['partial'] });
    const tokyo = iosToken(8401);
    const berlin = iosToken(8402);
    await register(account.publishableKey, 'partial', 'ios', tokyo, 'Asia/Tokyo');
    await register(account.publishableKey, 'partial', 'ios', berlin, 'Europe/Berlin');
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'partial',
      title: 'Morning',
      deliverAtLocalTime: '09:00',
    });
    const id = sent.body.data.id as string;
    await advanceTo('2026-06-04T01:00:00Z', [tokyo]);
    await waitFor(
      async () => (await notification(account.secretKey, id)).stats.delivered === 1,
      10_000,
      'Tokyo counted',
    );
    const canceled = await post(h.app, `/api/v1/notifications/${id}/cancel`, account.secretKey);
    expect(canceled.statusCode).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', stats: { delivered: 1, failed: 0, pending: 0 } });
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
    h.clock.set(Date.parse('2026-06-04T08:00:00Z'));
    await h.worker.pool.whenIdle();
    expect(received(berlin)).toBe(false);
  });
});
