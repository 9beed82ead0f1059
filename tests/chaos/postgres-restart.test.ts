import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../src/store/channels-queries.ts';
import {
  seedSubscribers,
  SEVERAL_PROCESSES,
  startFakeProviders,
  type FakeProviders,
} from '../delivery/engine/delivery-harness.ts';
import { startServeProcess, type ServerProcess } from '../harness/cli-process.ts';
import { postgresServerBin, startPrivatePostgres, type PrivatePostgres } from '../harness/private-postgres.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { startTestApp, type TestAccount, type TestApp } from '../harness/test-app.ts';
import { waitFor } from '../harness/wait-for.ts';
import {
  atPushes,
  expectEveryPushDelivered,
  receivedCounts,
  SUBSCRIBERS,
  waitUntilSent,
  type FanOut,
} from './chaos-harness.ts';

/**
 * A PostgreSQL crash under load: `clarion serve` on a PostgreSQL server of the test's own, which the test stops with
 * `pg_ctl stop -m immediate` (every server process ends at once, as in a crash or a failover) in the middle of a
 * fan-out while API requests keep arriving, then starts again. What must hold (docs/delivery.md, "A database
 * outage"): the process survives, the API answers 503 `unavailable` while the database is gone and 201 again once it
 * is back, and every notification that got a 201 — the fan-out and those accepted around the crash — is delivered
 * with exact stats.
 *
 * Runs in the PostgreSQL run only, and needs Debian's PostgreSQL server binaries (.ci/run installs the `postgresql`
 * package); without them it is skipped, saying so.
 */
const bin = postgresServerBin();
const skipReason =
  testDialect !== 'postgres'
    ? 'a PostgreSQL scenario: it runs with CLARION_TEST_DIALECT=postgres'
    : bin === null
      ? 'no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)'
      : null;

/** API requests kept in flight at once through the crash: half register subscribers, half send and read notifications. */
const CONCURRENT_REQUESTS = 4;
/** The registrations, and a settling send job per worker slot (the default concurrency, 2). */
const IN_FLIGHT_TRANSACTIONS = CONCURRENT_REQUESTS / 2 + 2;
/** What a send job logs when it has given up settling its sent batch for now (src/delivery/send-batch.ts). */
const KEPT_ANSWERS = /settling a sent batch failed; its answers are kept/;
/** 503s the load must have seen before the server comes back: the process has met the outage on many connections. */
const OUTAGE_ANSWERS = 20;
const TIMEOUT_MS = 90_000;

let cluster: PrivatePostgres;
let t: TestApp;
let fakes: FakeProviders;
let serve: ServerProcess | null = null;
let nextToken = 1_000_000;

describe.skipIf(skipReason !== null)(
  `chaos: a PostgreSQL crash under load${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    beforeAll(async () => {
      cluster = await startPrivatePostgres(bin!);
      t = await startTestApp({}, { databaseUrl: cluster.url });
      // The process runs on the real clock; the fakes check JWTs against it too. Each scenario starts a `clarion serve`
      // of its own, which signs its own APNs provider token for the one key: the fakes take a new token at once.
      fakes = await startFakeProviders(SEVERAL_PROCESSES);
    });
    afterEach(async () => {
      await serve?.stop('SIGKILL');
      serve = null;
      // A scenario that failed during the outage leaves the server down.
      await cluster.start();
    });
    afterAll(async () => {
      await fakes?.close();
      await t?.close();
      await cluster?.destroy();
    });

    it.each([
      { mode: 'one event loop (the default)', env: {} },
      { mode: 'the worker on its own thread', env: { CLARION_WORKER_THREAD: 'true' } },
    ])(
      'survives it with $mode: 503 unavailable while the database is gone, then every accepted notification delivered',
      async ({ env }) => {
        const account = await t.newAccount({ channels: ['crowd', 'pair'] });
        const crowd: FanOut = {
          account,
          notificationId: '',
          tokens: await seedSubscribers(t, account, 'crowd', SUBSCRIBERS, nextToken),
        };
        await seedSubscribers(t, account, 'pair', 2, nextToken + SUBSCRIBERS);
        nextToken += SUBSCRIBERS + 2;
        await createChannel(t.store.db, {
          accountId: account.id,
          code: 'joining',
          name: 'joining',
          description: null,
          now: t.clock.now(),
        });
        const server = await startServeProcess({
          ...fakes.providerEnv,
          ...env,
          CLARION_DATABASE_URL: cluster.url,
          CLARION_DATA_DIR: t.config.dataDir,
          CLARION_LOG_LEVEL: 'info',
          // The load below is one key's requests as fast as they are answered: only the database may refuse them.
          CLARION_RATE_LIMIT_PER_SECOND: '10000',
          CLARION_RATE_LIMIT_BURST: '10000',
          // Longer than the scenario: no lease lapses and no rescuer returns a job, so every job the outage interrupted must
          // be given back by the worker itself once the database answers.
          CLARION_JOB_LEASE: '10m',
        });
        serve = server;
        const api = apiOf(server, account);
        const sent = await api('POST', '/api/v1/notifications', {
          channelCode: 'crowd',
          title: 'Everyone',
          body: 'Hello, crowd',
        });
        expect(sent.status, JSON.stringify(sent.body)).toBe(201);
        crowd.notificationId = sent.body.data.id;

        const load = startLoad(api);
        const locker = new pg.Client({ connectionString: cluster.url });
        // This connection dies with the server like every other.
        locker.on('error', () => {});
        try {
          // A third of the fan-out delivered, and notifications being accepted.
          await atPushes(fakes.apns, fakes.fcm, crowd, Math.floor(SUBSCRIBERS * 0.3), () => undefined);
          await waitFor(
            () => load.accepted.length >= CONCURRENT_REQUESTS,
            30_000,
            'notifications accepted before the crash',
          );
          // Transactions in flight at the crash, for certain rather than most of the time: with writes to subscribers held
          // back, every send job settling its batch and every registration waits inside its transaction.
          await locker.connect();
          await locker.query('BEGIN');
          await locker.query('LOCK TABLE subscribers IN SHARE MODE');
          await waitFor(
            async () => (await waitingOnLocks(locker)) >= IN_FLIGHT_TRANSACTIONS,
            30_000,
            `${IN_FLIGHT_TRANSACTIONS} transactions waiting`,
          );
          await cluster.crash();

          // While the database is gone: the API answers 503 unavailable, and the process is still there. The outage lasts
          // until a send job has given up settling its sent batch (send-batch.ts): it keeps the answers and fails its
          // attempt, which cannot be recorded either until the database is back.
          const outageSeen = () => load.unavailable >= OUTAGE_ANSWERS && KEPT_ANSWERS.test(server.output());
          await waitFor(
            () => outageSeen() || server.child.exitCode !== null,
            30_000,
            `${OUTAGE_ANSWERS} answers and a sent batch kept while the database is down`,
          );
          expect(
            server.child.exitCode,
            `clarion serve exited during the outage:\n${server.output().slice(-3_000)}`,
          ).toBeNull();
          const ready = await api('GET', '/readyz');
          expect(ready.status).toBe(503);
          expect(ready.body.error.code).toBe('unavailable');
          const read = await api('GET', `/api/v1/notifications/${crowd.notificationId}`);
          expect(read.status).toBe(503);
          expect(read.body).toEqual({
            success: false,
            error: { code: 'unavailable', message: expect.any(String), requestId: expect.any(String) },
          });

          // Back: the API accepts again.
          await cluster.start();
          const acceptedBefore = load.accepted.length;
          await waitFor(
            () => load.accepted.length > acceptedBefore || server.child.exitCode !== null,
            30_000,
            'a notification accepted after the restart',
          );
          expect(server.child.exitCode, `clarion serve exited:\n${server.output().slice(-3_000)}`).toBeNull();
          expect((await api('GET', '/readyz')).status).toBe(200);
        } finally {
          await load.stop();
          await locker.end().catch(() => {});
        }
        expect(load.unexpected, 'every answer is a 201 or a 503 unavailable').toEqual([]);

        // Every notification that got a 201 is delivered, with exact stats. No push goes out twice: the batches sent while
        // the database went away are settled from the answers this process kept.
        const final = await waitUntilSent(t, crowd);
        expectEveryPushDelivered(final, receivedCounts(fakes.apns, fakes.fcm, crowd), crowd, 0);
        for (const id of load.accepted) {
          const pair = await waitUntilSent(t, { ...crowd, notificationId: id });
          expect(pair.stats, `notification ${id}`).toMatchObject({
            delivered: 2,
            failed: 0,
            skipped: 0,
            pending: 0,
            held: 0,
          });
        }
        expect(server.child.exitCode).toBeNull();
        // Not silent: the lost connections were logged (src/store/postgres/postgres-pool.ts).
        expect(server.output()).toMatch(/lost a PostgreSQL connection/);
      },
      TIMEOUT_MS,
    );
  },
);

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** Requests to the `clarion serve` process over HTTP, with the account's secret key. */
function apiOf(server: ServerProcess, account: TestAccount): Api {
  return async (method, path, body) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${account.secretKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}

/** Sessions of the server waiting for a lock, as PostgreSQL sees them. */
async function waitingOnLocks(client: pg.Client): Promise<number> {
  const { rows } = await client.query(
    "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
  );
  return rows[0].waiting;
}

let nextJoiner = 0;

/**
 * CONCURRENT_REQUESTS loops until stopped, so that the API's connections are busy when the database goes away: half
 * register a new subscriber (a transaction), half send a notification to the two-subscriber channel and read it back.
 * Counts 503 `unavailable` answers, keeps the ids of accepted notifications, and collects anything else (another
 * status, no answer at all).
 */
function startLoad(api: Api) {
  const state = { accepted: [] as string[], unavailable: 0, unexpected: [] as string[], stopped: false };
  const check = (answer: { status: number; body: any }, what: string): boolean => {
    if (answer.status === 503 && answer.body?.success === false && answer.body.error?.code === 'unavailable') {
      state.unavailable += 1;
      return false;
    }
    if (answer.status === 201 || answer.status === 200) return true;
    state.unexpected.push(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return false;
  };
  const register = async () => {
    const token = `fcm-joiner-${process.pid}-${(nextJoiner += 1)}-${'x'.repeat(20)}`;
    check(
      await api('POST', '/api/v1/subscribers', { channelCode: 'joining', platform: 'android', token }),
      'POST /subscribers',
    );
  };
  const send = async () => {
    const sent = await api('POST', '/api/v1/notifications', {
      channelCode: 'pair',
      title: 'Pair',
      body: 'Hello, pair',
    });
    if (!check(sent, 'POST /notifications')) return;
    state.accepted.push(sent.body.data.id);
    check(await api('GET', `/api/v1/notifications/${sent.body.data.id}`), 'GET /notifications/{id}');
  };
  const loop = async (work: () => Promise<void>) => {
    while (!state.stopped) {
      try {
        await work();
      } catch (error) {
        state.unexpected.push(`no answer: ${String(error)}`);
        return;
      }
    }
  };
  const loops = Array.from({ length: CONCURRENT_REQUESTS }, (_, n) => loop(n % 2 === 0 ? register : send));
  return Object.assign(state, {
    async stop() {
      state.stopped = true;
      await Promise.all(loops);
    },
  });
}
