import { randomBytes } from 'node:crypto';
import { receiptKey } from '../../../src/domain/receipt.ts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_RETRY_DELAYS_MS } from '../../../src/delivery/send-batch.ts';
import { dispatchNotificationHandler } from '../../../src/delivery/dispatch-job.ts';
import { DISPATCH_NOTIFICATION, SEND_BATCH, sendBatchJob } from '../../../src/delivery/job-kinds.ts';
import { createPushProviders } from '../../../src/delivery/built-in-app.ts';
import type { PushProviders } from '../../../src/delivery/push-sender.ts';
import { sendBatchHandler } from '../../../src/delivery/send-batch-job.ts';
import { dispatchLiveActivityHandler } from '../../../src/delivery/live-activities/live-activity-dispatch-job.ts';
import {
  DISPATCH_LIVE_ACTIVITY,
  SEND_LIVE_ACTIVITY,
} from '../../../src/delivery/live-activities/live-activity-jobs.ts';
import { sendLiveActivityHandler } from '../../../src/delivery/live-activities/live-activity-send-job.ts';
import { dispatchWidgetReloadHandler } from '../../../src/delivery/widgets/widget-dispatch-job.ts';
import { DISPATCH_WIDGET_RELOAD, SEND_WIDGET_RELOAD } from '../../../src/delivery/widgets/widget-jobs.ts';
import { sendWidgetReloadHandler } from '../../../src/delivery/widgets/widget-send-job.ts';
import { JobFatalError, JobRetryError, type JobRow } from '../../../src/queue/job-types.ts';
import type { JobHandler } from '../../../src/queue/worker-pool.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import {
  androidToken,
  fakeProviderConfig,
  iosToken,
  startFakeProviders,
  type FakeProviders,
} from './delivery-harness.ts';
import { faultyStore, isJobInsert, isSubscriberRead, type FaultyStore } from './store-faults.ts';

/**
 * When the pushes are out but the transaction that settles them fails (here: SQLITE_FULL / disk_full on the
 * counters' UPDATE, injected where the driver raises it), the batch is settled later from its kept answers and never
 * sent again; and a send job that fails its last attempt still brings the notification to a final status.
 *
 * The jobs are run one attempt at a time, exactly as the worker pool runs them (handler, then queue.fail on an error),
 * so each attempt boundary is explicit. A database of its own, so no other file's jobs are claimed.
 */
let t: TestApp;
let fakes: FakeProviders;
let providers: PushProviders;
let faulty: FaultyStore;
let handlers: Record<string, JobHandler>;
const logger = pino({ level: 'silent' });
const OWNER = 'settle-test-worker';

beforeAll(async () => {
  t = await startTestApp({}, { isolatedDatabase: true });
  fakes = await startFakeProviders({ clock: t.clock });
  providers = createPushProviders({ ...t.config, ...fakeProviderConfig(fakes.providerEnv) }, t.clock, logger);
  faulty = faultyStore(t.store);
  const deps = { store: faulty.store, queue: t.queue, clock: t.clock, logger };
  const sendDeps = { ...deps, providers, receiptKey: receiptKey(randomBytes(32)) };
  handlers = {
    [DISPATCH_NOTIFICATION]: dispatchNotificationHandler(deps),
    [SEND_BATCH]: sendBatchHandler(sendDeps),
    [DISPATCH_WIDGET_RELOAD]: dispatchWidgetReloadHandler(sendDeps),
    [SEND_WIDGET_RELOAD]: sendWidgetReloadHandler(sendDeps),
    [DISPATCH_LIVE_ACTIVITY]: dispatchLiveActivityHandler(sendDeps),
    [SEND_LIVE_ACTIVITY]: sendLiveActivityHandler(sendDeps),
  };
});
afterAll(async () => {
  await Promise.all(Object.values(providers ?? {}).map((provider) => provider.close()));
  await fakes?.close();
  await t?.close();
});

/** One attempt of one due job of `kind`, as WorkerPool.execute runs it; the job row it ran, and the error if any. */
async function runOne(kind: string): Promise<{ job: JobRow; error: unknown }> {
  const [job] = await t.queue.claim({ owner: OWNER, kinds: [kind], limit: 1, leaseMs: 60_000 });
  if (!job) throw new Error(`no due ${kind} job`);
  try {
    await handlers[kind]!(job, { owner: OWNER, signal: new AbortController().signal });
    await t.queue.complete(t.store.db, job, OWNER);
    return { job, error: null };
  } catch (error) {
    await t.queue.fail(job, OWNER, {
      message: String(error),
      retryAfterMs: error instanceof JobRetryError ? error.retryAfterMs : null,
      fatal: error instanceof JobFatalError,
    });
    return { job, error };
  }
}

async function notify(
  channel: string,
  tokens: { ios?: string[]; android?: string[] },
): Promise<{ id: string; secretKey: string }> {
  const account = await t.newAccount({ channels: [channel] });
  for (const token of tokens.ios ?? [])
    expect(
      (
        await post(t.app, '/api/v1/subscribers', account.publishableKey, {
          channelCode: channel,
          platform: 'ios',
          token,
        })
      ).statusCode,
    ).toBe(201);
  for (const token of tokens.android ?? [])
    expect(
      (
        await post(t.app, '/api/v1/subscribers', account.publishableKey, {
          channelCode: channel,
          platform: 'android',
          token,
        })
      ).statusCode,
    ).toBe(201);
  const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
    channelCode: channel,
    title: 'Disk full',
  });
  expect(sent.statusCode).toBe(201);
  expect((await runOne(DISPATCH_NOTIFICATION)).error).toBeNull();
  return { id: sent.body.data.id as string, secretKey: account.secretKey };
}

function pushesTo(tokens: string[]): number[] {
  return tokens.map(
    (token) =>
      fakes.apns.requests.filter((r) => r.token === token).length +
      fakes.fcm.requests.filter((r) => r.target?.value === token).length,
  );
}

/** The due job of `kind` gets one attempt left: the next one is its last. */
async function lastAttemptOf(kind: string): Promise<void> {
  const updated = await t.store.db
    .updateTable('jobs')
    .set({ max_attempts: 1 })
    .where('kind', '=', kind)
    .where('state', '=', 'available')
    .executeTakeFirst();
  expect(Number(updated.numUpdatedRows)).toBe(1);
}

async function register(
  publishableKey: string,
  channelCode: string,
  subscriber: { platform: 'ios' | 'android'; token: string; widgetPushToken?: string },
): Promise<void> {
  expect((await post(t.app, '/api/v1/subscribers', publishableKey, { channelCode, ...subscriber })).statusCode).toBe(
    201,
  );
}

async function statusOf(id: string, secretKey: string) {
  return (await get(t.app, `/api/v1/notifications/${id}`, secretKey)).body.data;
}

describe('a failed settling transaction', () => {
  it('is retried in memory, and the batch is not sent again', async () => {
    const tokens = [iosToken(91_001), iosToken(91_002), iosToken(91_003)];
    const { id, secretKey } = await notify('settle-retry', { ios: tokens });
    faulty.failNext(SETTLE_RETRY_DELAYS_MS.length);
    const before = faulty.failures;
    const { error } = await runOne(SEND_BATCH);
    expect(error).toBeNull();
    expect(faulty.failures - before).toBe(SETTLE_RETRY_DELAYS_MS.length);
    expect(pushesTo(tokens)).toEqual([1, 1, 1]);
    expect(await statusOf(id, secretKey)).toMatchObject({
      status: 'sent',
      stats: { delivered: 3, failed: 0, pending: 0 },
    });
  });

  it('keeps the answers in the job when it keeps failing, and the next attempt settles them without sending', async () => {
    const tokens = [androidToken(92_001), androidToken(92_002)];
    const { id, secretKey } = await notify('settle-later', { android: tokens });
    faulty.failNext(SETTLE_RETRY_DELAYS_MS.length + 1);
    const first = await runOne(SEND_BATCH);
    expect(first.error).toBeInstanceOf(JobRetryError);
    expect(pushesTo(tokens)).toEqual([1, 1]);
    const kept = (await t.queue.findJob(first.job.id))!;
    expect(kept.state).toBe('available');
    expect(Object.keys(sendBatchJob.payloadOf(kept).sent!.outcomes).length).toBe(2);
    expect(await statusOf(id, secretKey)).toMatchObject({ status: 'sending', stats: { pending: 2 } });

    t.clock.advance(60_000);
    const second = await runOne(SEND_BATCH);
    expect(second.job.id).toBe(first.job.id);
    expect(second.error).toBeNull();
    expect(pushesTo(tokens)).toEqual([1, 1]);
    expect(await statusOf(id, secretKey)).toMatchObject({
      status: 'sent',
      stats: { delivered: 2, failed: 0, pending: 0 },
    });
  });
});

describe('a send job on its last attempt', () => {
  it('settles the answers it has instead of leaving the notification sending', async () => {
    const tokens = [iosToken(93_001), iosToken(93_002)];
    const { id, secretKey } = await notify('last-attempt', { ios: tokens });
    await t.store.db
      .updateTable('jobs')
      .set({ max_attempts: 1 })
      .where('kind', '=', SEND_BATCH)
      .where('state', '=', 'available')
      .execute();
    // Every in-memory try of the normal settling fails; the giving-up settlement then goes through.
    faulty.failNext(SETTLE_RETRY_DELAYS_MS.length + 1);
    const { job, error } = await runOne(SEND_BATCH);
    expect(error).toBeNull();
    expect((await t.queue.findJob(job.id))!.state).toBe('completed');
    expect(pushesTo(tokens)).toEqual([1, 1]);
    expect(await statusOf(id, secretKey)).toMatchObject({
      status: 'sent',
      stats: { delivered: 2, failed: 0, pending: 0 },
    });
  });

  it('fails the pushes it could not send as attempts_exhausted, so the notification ends failed', async () => {
    const tokens = [androidToken(94_001), androidToken(94_002)];
    const { id, secretKey } = await notify('exhausted', { android: tokens });
    await t.store.db
      .updateTable('jobs')
      .set({ max_attempts: 1 })
      .where('kind', '=', SEND_BATCH)
      .where('state', '=', 'available')
      .execute();
    // The attempt fails before anything is sent: the store cannot even read the batch's subscribers.
    faulty.failNext(1, isSubscriberRead);
    const { job } = await runOne(SEND_BATCH);
    expect((await t.queue.findJob(job.id))!.state).toBe('completed');
    expect(pushesTo(tokens)).toEqual([0, 0]);
    const final = await statusOf(id, secretKey);
    expect(final).toMatchObject({ status: 'failed', stats: { delivered: 0, failed: 2, pending: 0 } });
    const failures = (await get(t.app, `/api/v1/notifications/${id}/failures`, secretKey)).body.data;
    expect(failures.map((failure: { reason: string }) => failure.reason)).toEqual([
      'attempts_exhausted',
      'attempts_exhausted',
    ]);
  });
});

describe('the send jobs that record their tokens, on their last attempt', () => {
  // A provider's 429 or 503 asks for a later round, whose job the settling transaction enqueues; here that INSERT
  // fails on every in-memory try, so the attempt fails, and as it is the last the job settles what it has instead.

  it('a widget reload settles the answer it has and asks for no further round', async () => {
    const account = await t.newAccount({ channels: ['widget-last'] });
    const widget = iosToken(95_002);
    await register(account.publishableKey, 'widget-last', {
      platform: 'ios',
      token: iosToken(95_001),
      widgetPushToken: widget,
    });
    const reload = await post(t.app, '/api/v1/widgets/reload', account.secretKey, { channelCode: 'widget-last' });
    expect(reload.statusCode).toBe(202);
    expect((await runOne(DISPATCH_WIDGET_RELOAD)).error).toBeNull();
    await lastAttemptOf(SEND_WIDGET_RELOAD);
    fakes.apns.failNext(1, { reason: 'TooManyRequests' });
    faulty.failNext(SETTLE_RETRY_DELAYS_MS.length + 1, isJobInsert);

    const { job, error } = await runOne(SEND_WIDGET_RELOAD);
    expect(error).toBeNull();
    expect((await t.queue.findJob(job.id))!.state).toBe('completed');
    expect(fakes.apns.requests.filter((request) => request.token === widget).map((r) => r.status)).toEqual([429]);
    const later = await t.store.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', SEND_WIDGET_RELOAD)
      .where('state', '=', 'available')
      .execute();
    expect(later).toEqual([]);
  });

  it('a Live Activity event counts the device it could not reach as failed, so the event still ends done', async () => {
    const account = await t.newAccount({ channels: ['activity-last'] });
    await register(account.publishableKey, 'activity-last', { platform: 'android', token: androidToken(96_001) });
    const started = await post(t.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'activity-last',
      template: 'progress',
      fields: { title: 'Order 1042', progress: 0.1 },
    });
    expect(started.statusCode).toBe(201);
    expect((await runOne(DISPATCH_LIVE_ACTIVITY)).error).toBeNull();
    await lastAttemptOf(SEND_LIVE_ACTIVITY);
    // UNAVAILABLE: "The server is overloaded", retry later (https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode).
    fakes.fcm.failNext(1, { errorCode: 'UNAVAILABLE', retryAfterSeconds: 60 });
    faulty.failNext(SETTLE_RETRY_DELAYS_MS.length + 1, isJobInsert);

    const { job, error } = await runOne(SEND_LIVE_ACTIVITY);
    expect(error).toBeNull();
    expect((await t.queue.findJob(job.id))!.state).toBe('completed');
    const activity = (await get(t.app, `/api/v1/live-activities/${started.body.data.id}`, account.secretKey)).body.data;
    expect(activity.lastEvent).toMatchObject({ event: 'start', status: 'done', delivered: 0, failed: 1, pending: 0 });
  });
});
