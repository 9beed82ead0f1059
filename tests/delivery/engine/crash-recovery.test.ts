import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startServeProcess, type ServerProcess } from '../../harness/cli-process.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { seedSubscribers, SEVERAL_PROCESSES, startFakeProviders, type FakeProviders } from './delivery-harness.ts';

/**
 * Nothing is lost when a worker dies mid fan-out: a `clarion serve --worker` process is killed with SIGKILL while a
 * 20,000-subscriber notification is being sent, a second one is started on the same database, and every token
 * still receives the push — repeats only within the batches that ran twice, the ones the dead worker had in flight — with
 * exact final stats.
 */
const SUBSCRIBERS = 20_000;
const KILL_AFTER_PUSHES = 6_000;

let t: TestApp;
let fakes: FakeProviders;
const workers: ServerProcess[] = [];

beforeAll(async () => {
  t = await startTestApp();
  fakes = await startFakeProviders(SEVERAL_PROCESSES);
});
afterAll(async () => {
  for (const worker of workers) await worker.stop('SIGKILL');
  await fakes?.close();
  await t?.close();
});

function workerEnv(): Record<string, string | undefined> {
  return {
    ...fakes.providerEnv,
    CLARION_DATA_DIR: t.config.dataDir,
    CLARION_DATABASE_URL: inject('postgresUrl') ?? undefined,
    // A dead worker's jobs come back after 2 s instead of 60: the rescuer is what this test exercises.
    CLARION_JOB_LEASE: '2s',
    CLARION_QUEUE_POLL_INTERVAL: '100ms',
    CLARION_WORKER_CONCURRENCY: '4',
    CLARION_LOG_LEVEL: 'info',
  };
}

async function startWorker(): Promise<ServerProcess> {
  const worker = await startServeProcess(workerEnv(), ['--worker'], /delivery worker started()/);
  workers.push(worker);
  return worker;
}

describe('crash recovery of a large fan-out', () => {
  it('delivers to every subscriber after a worker is killed mid-send, repeating only in-flight batches', async () => {
    const account = await t.newAccount({ channels: ['crowd'] });
    const tokenOwner = await seedSubscribers(t, account, 'crowd', SUBSCRIBERS);

    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'crowd',
      title: 'Everyone',
      body: 'Hello, crowd',
    });
    expect(sent.statusCode).toBe(201);
    expect(sent.body.data.recipientCount).toBe(SUBSCRIBERS);
    const notificationId = sent.body.data.id as string;

    // Kill the first worker from inside the fakes' request hook, so it dies with pushes in flight.
    let pushes = 0;
    let first: ServerProcess | null = null;
    let killed = false;
    const maybeKill = () => {
      pushes += 1;
      if (!killed && first && pushes >= KILL_AFTER_PUSHES) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };
    fakes.apns.onRequest(maybeKill);
    fakes.fcm.onRequest(maybeKill);
    first = await startWorker();
    await waitFor(
      () => first!.child.exitCode !== null || first!.child.signalCode !== null,
      60_000,
      'the first worker to be killed',
    );
    expect(killed).toBe(true);

    // What the dead worker held: its running send jobs. Only their tokens may be pushed twice.
    const inFlight = new Set<string>();
    const running = await t.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'notification.send')
      .where('state', '=', 'running')
      .execute();
    for (const job of running) {
      const payload = JSON.parse(job.payload);
      if (payload.notificationId === notificationId) for (const id of payload.subscriberIds) inFlight.add(id);
    }
    const beforeRestart = (await get(t.app, `/api/v1/notifications/${notificationId}`, account.secretKey)).body.data;
    expect(beforeRestart.status).toBe('sending');

    await startWorker();
    let final: any;
    await waitFor(
      async () => {
        final = (await get(t.app, `/api/v1/notifications/${notificationId}`, account.secretKey)).body.data;
        return final.status === 'sent';
      },
      120_000,
      'the notification to be sent after the restart',
    );

    expect(final.stats).toMatchObject({ delivered: SUBSCRIBERS, failed: 0, skipped: 0, pending: 0, held: 0 });
    const received = new Map<string, number>();
    // Only this test's tokens: on the shared PostgreSQL database its workers also claim other files' leftover jobs.
    for (const request of fakes.apns.requests)
      if (request.status === 200 && tokenOwner.has(request.token!))
        received.set(request.token!, (received.get(request.token!) ?? 0) + 1);
    for (const request of fakes.fcm.requests)
      if (request.status === 200 && tokenOwner.has(request.target!.value))
        received.set(request.target!.value, (received.get(request.target!.value) ?? 0) + 1);
    expect(received.size).toBe(SUBSCRIBERS);
    for (const token of tokenOwner.keys()) expect(received.has(token)).toBe(true);
    const repeated = [...received].filter(([, count]) => count > 1).map(([token]) => tokenOwner.get(token)!);
    // Repeats only within batches that ran twice: the dead worker's running send jobs, rescued and run again — and,
    // on a machine so loaded that the live worker missed renewing a 2 s lease, a job it was still running and rescued
    // itself (seen once at load average 17). A job's `attempt` counts its runs: a repeated token's job ran more than once.
    const sends = await t.store.db
      .selectFrom('jobs')
      .select(['payload', 'attempt'])
      .where('kind', '=', 'notification.send')
      .execute();
    const ranTwice = new Set<string>();
    for (const job of sends) {
      const payload = JSON.parse(job.payload);
      if (payload.notificationId === notificationId && job.attempt > 1)
        for (const id of payload.subscriberIds) ranTwice.add(id);
    }
    for (const subscriberId of inFlight) expect(ranTwice.has(subscriberId)).toBe(true);
    for (const subscriberId of repeated) expect(ranTwice.has(subscriberId)).toBe(true);
    const deliveredEvents = await t.store.db
      .selectFrom('events')
      .select('data')
      .where('account_id', '=', account.id)
      .where('type', '=', 'notification.delivered')
      .execute();
    expect(deliveredEvents).toHaveLength(1);
    console.log(
      `crash test: killed after ${KILL_AFTER_PUSHES} pushes; ${inFlight.size} tokens were in flight, ${ranTwice.size} in batches that ran twice, ${repeated.length} were pushed twice`,
    );
  }, 180_000);
});
