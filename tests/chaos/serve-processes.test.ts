import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SEND_BATCH_SIZE } from '../../src/delivery/job-kinds.ts';
import { type FaultProxy, startFaultProxy } from '../../tools/fault-proxy/fault-proxy.ts';
import { SEVERAL_PROCESSES, startFakeProviders, type FakeProviders } from '../delivery/engine/delivery-harness.ts';
import { startServeProcess, type ServerProcess } from '../harness/cli-process.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import {
  SCENARIO_TIMEOUT_MS,
  SUBSCRIBERS,
  atPushes,
  expectEveryPushDelivered,
  receivedCounts,
  startFanOut,
  waitUntilSent,
  type FanOut,
} from './chaos-harness.ts';

/**
 * Real `clarion serve --worker` processes, reaching the fakes through fault proxies: one stopped with SIGTERM while
 * its connections are black-holed, and (PostgreSQL) one of two killed with SIGKILL mid fan-out. The single-worker
 * SIGKILL case at 20,000 subscribers is tests/delivery/engine/crash-recovery.test.ts.
 */
const WORKER_CONCURRENCY = 4;
/** Tokens one worker has in flight at most: the pushes a stop or a kill may repeat. */
const IN_FLIGHT = WORKER_CONCURRENCY * SEND_BATCH_SIZE;
/** A stop with stuck connections must still be graceful and quick. */
const SIGTERM_DEADLINE_MS = 5_000;

let t: TestApp;
let fakes: FakeProviders;
let apnsProxy: FaultProxy;
let fcmProxy: FaultProxy;
let workers: ServerProcess[] = [];

beforeAll(async () => {
  // A database of its own on PostgreSQL: a `clarion serve --worker` on the run's shared one would claim other files'
  // jobs (Live Activity broadcasts, webhooks, their notifications) and send them through this file's black-holed
  // proxies, and its stop would then wait on work this scenario never made.
  t = await startTestApp({}, { isolatedDatabase: true });
  // The processes run on the real clock; the fakes must check JWTs against it too.
  fakes = await startFakeProviders(SEVERAL_PROCESSES);
  apnsProxy = await startFaultProxy({ target: fakes.apns.url });
  fcmProxy = await startFaultProxy({ target: fakes.fcm.url });
});
afterEach(async () => {
  for (const worker of workers) await worker.stop('SIGKILL');
  workers = [];
  apnsProxy.resume();
  fcmProxy.resume();
});
afterAll(async () => {
  await apnsProxy?.close();
  await fcmProxy?.close();
  await fakes?.close();
  await t?.close();
});

async function startWorker(): Promise<ServerProcess> {
  const worker = await startServeProcess(
    {
      ...fakes.providerEnv,
      CLARION_APNS_URL: apnsProxy.url,
      CLARION_FCM_URL: fcmProxy.url,
      CLARION_DATA_DIR: t.config.dataDir,
      CLARION_DATABASE_URL: t.databaseUrl,
      // A killed worker's jobs come back after 2 s instead of 60.
      CLARION_JOB_LEASE: '2s',
      CLARION_QUEUE_POLL_INTERVAL: '100ms',
      CLARION_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      CLARION_LOG_LEVEL: 'info',
    },
    ['--worker'],
    /delivery worker started()/,
  );
  workers.push(worker);
  return worker;
}

function exited(worker: ServerProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { child } = worker;
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Resolves with how the process ended, or rejects once `ms` have passed. */
function exitWithin(
  worker: ServerProcess,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () => reject(new Error(`still running ${ms} ms after SIGTERM:\n${worker.output().slice(-2_000)}`)),
        ms,
      )),
  );
  return Promise.race([exited(worker), deadline]).finally(() => clearTimeout(timer));
}

/** The subscriber ids of the send jobs of this fan-out that the process `pid` holds now. */
async function batchesHeldBy(pid: number, fanOut: FanOut): Promise<Set<string>> {
  const held = new Set<string>();
  const running = await t.store.db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', 'notification.send')
    .where('state', '=', 'running')
    .execute();
  for (const job of running) {
    const payload = JSON.parse(job.payload);
    if (payload.notificationId === fanOut.notificationId && String(job.lease_owner).includes(`:${pid}:`))
      for (const id of payload.subscriberIds) held.add(id);
  }
  return held;
}

describe('chaos: clarion serve processes', () => {
  it(
    `stops within ${SIGTERM_DEADLINE_MS} ms of SIGTERM while its connections are black-holed; another process delivers the rest`,
    async () => {
      const fanOut = await startFanOut(t);
      const first = await startWorker();
      await atPushes(fakes.apns, fakes.fcm, fanOut, Math.floor(SUBSCRIBERS * 0.3), () => {
        apnsProxy.stall();
        fcmProxy.stall();
      });
      first.child.kill('SIGTERM');
      // Graceful (exit code 0, not the 10 s forced exit) and quick, though every provider connection is silent.
      expect(await exitWithin(first, SIGTERM_DEADLINE_MS)).toEqual({ code: 0, signal: null });
      expect(first.output()).not.toMatch(/shutdown took too long/);

      apnsProxy.resume();
      fcmProxy.resume();
      await startWorker();
      const final = await waitUntilSent(t, fanOut);
      // The stopped worker's in-flight pushes reach the fakes when the black hole lifts: those may come twice.
      expectEveryPushDelivered(final, receivedCounts(fakes.apns, fakes.fcm, fanOut), fanOut, IN_FLIGHT);
    },
    SCENARIO_TIMEOUT_MS,
  );

  // PostgreSQL only: several worker processes on one database is the PostgreSQL deployment (FOR UPDATE SKIP LOCKED,
  // LISTEN/NOTIFY); on SQLite one process runs the workers, and its SIGKILL case is the crash test.
  it.runIf(testDialect === 'postgres')(
    'delivers everything when one of two workers is killed mid fan-out, repeating only its batches',
    async () => {
      // Both workers are up before the notification exists, so both take part in the fan-out.
      const doomed = await startWorker();
      await startWorker();
      const fanOut = await startFanOut(t);
      await atPushes(fakes.apns, fakes.fcm, fanOut, Math.floor(SUBSCRIBERS * 0.3), () => doomed.child.kill('SIGKILL'));
      await exited(doomed);
      const held = await batchesHeldBy(doomed.child.pid!, fanOut);
      const final = await waitUntilSent(t, fanOut);
      const repeated = expectEveryPushDelivered(
        final,
        receivedCounts(fakes.apns, fakes.fcm, fanOut),
        fanOut,
        IN_FLIGHT,
      );
      for (const token of repeated)
        expect(held.has(fanOut.tokens.get(token)!), `${token} repeated outside the killed worker's batches`).toBe(true);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
