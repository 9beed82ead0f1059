import { expect } from 'vitest';
import type { Config } from '../../src/config/load-config.ts';
import { createApnsClient } from '../../src/delivery/apns/apns-client.ts';
import { createFcmClient } from '../../src/delivery/fcm/fcm-client.ts';
import { SEND_BATCH_SIZE } from '../../src/delivery/job-kinds.ts';
import { sendApnsLiveActivity, sendFcmLiveActivity } from '../../src/delivery/live-activities/live-activity-senders.ts';
import { createPushProviders } from '../../src/delivery/built-in-app.ts';
import { unconfiguredSender, type PushProviders } from '../../src/delivery/push-sender.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { JobQueue } from '../../src/queue/job-queue.ts';
import { startWorkerThread } from '../../src/worker-thread.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/worker.ts';
import { type FaultProxy, startFaultProxy } from '../../tools/fault-proxy/fault-proxy.ts';
import { type FakeApns, type FakeFcm } from '../../tools/fakes/index.ts';
import { fakeProviderConfig, seedSubscribers, startFakeProviders } from '../delivery/engine/delivery-harness.ts';
import { get, post } from '../harness/requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../harness/test-app.ts';
import { capturingLogger } from '../harness/captured-logs.ts';

/**
 * The chaos suite's shared parts: a fan-out of SUBSCRIBERS tokens (half iOS, half Android) through an in-process
 * worker whose APNs and FCM connections run through fault proxies (tools/fault-proxy/), and the checks every
 * scenario ends with — zero lost pushes, exact stats, repeats only where a fault could cause them.
 *
 * CI runs 2,000 subscribers; CLARION_CHAOS_FULL=1 runs 20,000 (docs/develop.md, "Chaos suite").
 */
export const FULL = process.env.CLARION_CHAOS_FULL === '1';
export const SUBSCRIBERS = FULL ? 20_000 : 2_000;
/** How long a scenario may take to deliver everything after its last fault: a bound on recovery, not a speed test. */
export const RECOVERY_DEADLINE_MS = FULL ? 240_000 : 60_000;
/** The whole test's timeout. */
export const SCENARIO_TIMEOUT_MS = RECOVERY_DEADLINE_MS + 60_000;
/**
 * The provider clients' request timeout for scenarios that black-hole connections: short enough that a silent
 * request is given up, and its session PINGed, within a CI-sized test. Scenarios that must not repeat a single push
 * keep the default 15 s: on this one busy process (worker, fakes and proxies together) an answer can take seconds.
 */
export const SHORT_REQUEST_TIMEOUT_MS = 3_000;

export interface ChaosHarness extends TestApp {
  apns: FakeApns;
  fcm: FakeFcm;
  apnsProxy: FaultProxy;
  fcmProxy: FaultProxy;
  worker: DeliveryWorker;
  providers: PushProviders;
  logs: Array<Record<string, unknown>>;
}

export async function startChaosHarness(options: { requestTimeoutMs?: number } = {}): Promise<ChaosHarness> {
  // A database of its own on PostgreSQL: this file's worker moves its own clock (isolated-database.ts).
  const base = await startTestApp({}, { isolatedDatabase: true });
  const { apns, fcm, providerEnv, close: closeFakes } = await startFakeProviders({ clock: base.clock });
  const apnsProxy = await startFaultProxy({ target: apns.url });
  const fcmProxy = await startFaultProxy({ target: fcm.url });
  const { logger, logs } = capturingLogger();
  // The clients as built-in-app.ts builds them, pointed at the proxies.
  const apnsClient = createApnsClient({
    url: apnsProxy.url,
    keyFile: providerEnv.CLARION_APNS_KEY_FILE!,
    keyId: providerEnv.CLARION_APNS_KEY_ID!,
    teamId: providerEnv.CLARION_APNS_TEAM_ID!,
    topic: providerEnv.CLARION_APNS_TOPIC!,
    clock: base.clock,
    logger,
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  });
  const fcmClient = createFcmClient({
    url: fcmProxy.url,
    serviceAccountFile: providerEnv.CLARION_FCM_SERVICE_ACCOUNT_FILE!,
    clock: base.clock,
    logger,
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  });
  const providers: PushProviders = {
    ios: {
      send: (token, content, context) => apnsClient.send(token, content, { threadId: context.channelCode }),
      sendLiveActivity: (token, push) => sendApnsLiveActivity(apnsClient, token, push),
      close: () => apnsClient.close(),
    },
    android: {
      send: (token, content) => fcmClient.send(token, content),
      sendLiveActivity: (token, push) => sendFcmLiveActivity(fcmClient, token, push),
      close: () => fcmClient.close(),
    },
    // The chaos channels have no web subscribers: a web push here would be a harness bug, and fails loudly.
    web: unconfiguredSender('web_push_not_configured', 'the chaos suite seeds iOS and Android subscribers only'),
  };
  // Leases count on the injected clock, which runs ten times faster than the heartbeat's real-time interval: a
  // 60 s lease would lapse between heartbeats and the rescuer would rerun batches that are still sending.
  const config = { ...base.config, queuePollInterval: 50, workerConcurrency: 4, jobLease: 60 * 60_000 };
  const worker = await startDeliveryWorker({
    store: base.store,
    queue: base.queue,
    clock: base.clock,
    config,
    logger,
    providers,
    secretKey: base.secretKey,
  });
  // The engine's retry rounds wait on the injected clock (1 s backoff and up): it runs ten times faster than real
  // time for the whole scenario, so a follow-up round comes due whatever the test is waiting for.
  const ticker = setInterval(() => base.clock.advance(1_000), 100);
  return {
    ...base,
    apns,
    fcm,
    apnsProxy,
    fcmProxy,
    worker,
    providers,
    logs,
    async close() {
      clearInterval(ticker);
      await worker.stop(1_000);
      await Promise.all(Object.values(providers).map((provider) => provider.close()));
      await Promise.all([apnsProxy.close(), fcmProxy.close()]);
      await closeFakes();
      await base.close();
    },
  };
}

/**
 * How `clarion serve` runs its worker with both roles in one process: beside the API on one event loop (the
 * default), or on a thread of its own (CLARION_WORKER_THREAD=true, src/worker-thread.ts).
 */
export type WorkerMode = 'one event loop' | 'worker thread';

export interface ServeWorkerHarness extends TestApp {
  apns: FakeApns;
  fcm: FakeFcm;
  apnsProxy: FaultProxy;
  fcmProxy: FaultProxy;
  /** What the worker logged, parsed ('one event loop' only: the thread logs nothing here). */
  logs: Array<Record<string, unknown>>;
}

/**
 * The worker as an operator runs it: the default settings (CLARION_WORKER_CONCURRENCY 2, a 60 s lease, the 1 s
 * poll), the provider clients built from the configuration as `clarion serve` builds them (their default timeouts),
 * and the real clock (the fakes check JWTs against it too), so every wait in a scenario is the one production has.
 * APNs and FCM are reached through fault proxies. The API runs in the test process on its manual clock (set to the
 * real time at start) and wakes the worker as `clarion serve` does.
 */
export async function startServeWorkerHarness(mode: WorkerMode): Promise<ServeWorkerHarness> {
  const base = await startTestApp({}, { isolatedDatabase: true });
  const { apns, fcm, providerEnv, close: closeFakes } = await startFakeProviders();
  const apnsProxy = await startFaultProxy({ target: apns.url });
  const fcmProxy = await startFaultProxy({ target: fcm.url });
  const config: Config = {
    ...base.config,
    databaseUrl: base.databaseUrl,
    ...fakeProviderConfig(providerEnv),
    apnsUrl: apnsProxy.url,
    fcmUrl: fcmProxy.url,
    logLevel: 'silent',
  };
  const { logger, logs } = capturingLogger();
  let stopWorker: () => Promise<void>;
  if (mode === 'worker thread') {
    const thread = await startWorkerThread(config, null);
    const offWake = base.queue.onWake(() => setImmediate(() => thread.wake()));
    stopWorker = async () => {
      offWake();
      await thread.stop(1_000);
    };
  } else {
    const queue = JobQueue.forStore(base.store, systemClock);
    const providers = createPushProviders(config, systemClock, logger, null);
    const worker = await startDeliveryWorker({
      store: base.store,
      queue,
      clock: systemClock,
      config,
      logger,
      providers,
      secretKey: base.secretKey,
    });
    const offWake = base.queue.onWake(() => worker.pool.wake());
    stopWorker = async () => {
      offWake();
      await Promise.all([worker.stop(1_000), ...Object.values(providers).map((provider) => provider.close())]);
    };
  }
  return {
    ...base,
    apns,
    fcm,
    apnsProxy,
    fcmProxy,
    logs,
    async close() {
      await stopWorker();
      await Promise.all([apnsProxy.close(), fcmProxy.close()]);
      await closeFakes();
      await base.close();
    },
  };
}

export interface FanOut {
  account: TestAccount;
  notificationId: string;
  /** token → subscriber id. */
  tokens: Map<string, string>;
}

let nextTokenNumber = 0;

/** A channel of SUBSCRIBERS subscribers and a notification to all of them (accepted, not yet sent). */
export async function startFanOut(t: TestApp, count = SUBSCRIBERS): Promise<FanOut> {
  const account = await t.newAccount({ channels: ['crowd'] });
  // Tokens of their own per fan-out: fakes shared by several tests must not count one test's pushes for another.
  const tokens = await seedSubscribers(t, account, 'crowd', count, nextTokenNumber);
  nextTokenNumber += count;
  const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
    channelCode: 'crowd',
    title: 'Everyone',
    body: 'Hello, crowd',
  });
  expect(sent.statusCode).toBe(201);
  expect(sent.body.data.recipientCount).toBe(count);
  return { account, notificationId: sent.body.data.id as string, tokens };
}

/** Calls `fault` once the fakes have answered `pushes` pushes of this fan-out with 200 (at once if they already have). */
export function atPushes(
  apns: FakeApns,
  fcm: FakeFcm,
  fanOut: FanOut,
  pushes: number,
  fault: () => void,
): Promise<void> {
  let answered = [...receivedCounts(apns, fcm, fanOut).values()].reduce((sum, times) => sum + times, 0);
  return new Promise<void>((resolve) => {
    let done = false;
    const check = (token: string | null | undefined, status: number) => {
      if (status === 200 && token && fanOut.tokens.has(token)) answered += 1;
      if (done || answered < pushes) return;
      done = true;
      offApns();
      offFcm();
      fault();
      resolve();
    };
    const offApns = apns.onRequest((request) => check(request.token, request.status));
    const offFcm = fcm.onRequest((request) => check(request.target?.value, request.status));
    check(null, 0); // already there
  });
}

/** Waits for the notification to be `sent` (the harness keeps the clock moving); fails after `deadlineMs` of real time. */
export async function waitUntilSent(t: TestApp, fanOut: FanOut, deadlineMs = RECOVERY_DEADLINE_MS): Promise<any> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const data = (await get(t.app, `/api/v1/notifications/${fanOut.notificationId}`, fanOut.account.secretKey)).body
      .data;
    if (data.status === 'sent' || data.status === 'failed') return data;
    if (Date.now() > deadline)
      throw new Error(
        `not sent within ${deadlineMs} ms of the last fault: ${JSON.stringify(data.stats)} (${data.status})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How often each token of the fan-out got a 200 from the fakes. */
export function receivedCounts(apns: FakeApns, fcm: FakeFcm, fanOut: FanOut): Map<string, number> {
  const received = new Map<string, number>();
  const count = (token: string | null | undefined) => {
    if (token && fanOut.tokens.has(token)) received.set(token, (received.get(token) ?? 0) + 1);
  };
  for (const request of apns.requests) if (request.status === 200) count(request.token);
  for (const request of fcm.requests) if (request.status === 200) count(request.target?.value);
  return received;
}

/**
 * The end state every scenario must reach: sent, exact stats, every token delivered at least once, and at most
 * `maxRepeats` tokens delivered twice. Returns the repeated tokens for finer checks.
 */
export function expectEveryPushDelivered(
  final: any,
  received: Map<string, number>,
  fanOut: FanOut,
  maxRepeats: number,
): string[] {
  expect(final.status).toBe('sent');
  expect(final.stats).toMatchObject({ delivered: fanOut.tokens.size, failed: 0, skipped: 0, pending: 0, held: 0 });
  const missing = [...fanOut.tokens.keys()].filter((token) => !received.has(token));
  expect(missing).toEqual([]);
  const repeated = [...received].filter(([, times]) => times > 1).map(([token]) => token);
  expect(repeated.length).toBeLessThanOrEqual(maxRepeats);
  return repeated;
}

/** Where each fake's request log stood at a fault: a repeated push's first copy must lie just before one of them. */
export interface FaultMark {
  apns: number;
  fcm: number;
}

export function faultMark(h: ChaosHarness): FaultMark {
  return { apns: h.apns.requests.length, fcm: h.fcm.requests.length };
}

/** Pushes the harness's worker has in flight at most: its concurrency (4 send jobs) × the batch size. */
export const CHAOS_IN_FLIGHT = 4 * SEND_BATCH_SIZE;

/**
 * Every repeated token's first 200 was among the requests in flight at some fault: within CHAOS_IN_FLIGHT requests of
 * that fault's mark — before it, or after it for requests the fake finished reading (and recorded) only after the fault.
 */
function expectRepeatsOnlyAtFaults(h: ChaosHarness, repeated: string[], marks: FaultMark[], fanOut: FanOut): void {
  const window = CHAOS_IN_FLIGHT;
  for (const token of repeated) {
    const ios = h.apns.requests.findIndex((request) => request.status === 200 && request.token === token);
    const android = h.fcm.requests.findIndex((request) => request.status === 200 && request.target?.value === token);
    const first = ios >= 0 ? { at: ios, key: 'apns' as const } : { at: android, key: 'fcm' as const };
    const nearFault = marks.some((at) => Math.abs(first.at - at[first.key]) <= window);
    expect(nearFault, `token ${fanOut.tokens.get(token)} repeated without a fault around its first push`).toBe(true);
  }
}

/** The end state of a scenario with faults: expectEveryPushDelivered, and each repeated push in flight at a fault. */
export function expectEveryPushDeliveredRepeatingOnlyAtFaults(
  h: ChaosHarness,
  final: any,
  fanOut: FanOut,
  marks: FaultMark[],
  maxRepeats: number,
): void {
  const repeated = expectEveryPushDelivered(final, receivedCounts(h.apns, h.fcm, fanOut), fanOut, maxRepeats);
  expectRepeatsOnlyAtFaults(h, repeated, marks, fanOut);
}
