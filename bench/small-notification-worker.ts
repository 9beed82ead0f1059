// The worker's cost of one small notification (what the latency to first push under load depends on), in one process
// for comparing code changes on a busy machine: SQL statements (BEGIN and COMMIT included) and this process's CPU
// time per notification delivered, from the dispatch job's claim to the settle of its one push. The fakes run in a
// process of their own (tools/run-fakes.ts), so only Clarion's work counts.
//   trickle: one notification at a time, each delivered before the next is accepted (the pipeline alone);
//   backlog: --notifications accepted first, then the worker delivers them all (claims take many jobs at once).
//
//   node --import tsx bench/small-notification-worker.ts [--quick] [--postgres postgres://…] [--notifications 2000] [--statements] [--cpu-prof FILE]
// --statements prints the worker's SQL of one trickle notification, in order; --cpu-prof writes a V8 CPU profile of
// the measured phases only (the backlog's delivery and the trickle), not of start-up or the backlog's accepts.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../src/config/load-config.ts';
import { resolveSecretKey } from '../src/config/secret-key.ts';
import { systemClock } from '../src/domain/clock.ts';
import { createPushProviders } from '../src/delivery/built-in-app.ts';
import { resolveVapidKeys } from '../src/delivery/web-push/vapid-keys.ts';
import { buildApp } from '../src/http/app.ts';
import { JobQueue } from '../src/queue/job-queue.ts';
import { startDeliveryWorker } from '../src/worker.ts';
import {
  createBenchDatabase,
  ONE_PUSH_NOTIFICATION,
  seedAccount,
  seedOnePushChannel,
} from './harness/bench-database.ts';
import { printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { startFakes } from './harness/fakes-process.ts';
import { postgresDatabaseCpuSeconds } from './harness/process-usage.ts';
import { countStatements } from './harness/statement-counter.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    notifications: { type: 'string' },
    statements: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const backlogSize = Number(values.notifications ?? (values.quick ? 200 : 2000));
const trickleSize = values.quick ? 20 : 200;

// The provider clients trust the fakes' certificate only through NODE_EXTRA_CA_CERTS, read at start-up: the fakes
// start first, then this script runs again in a child with their environment.
if (!process.env.BENCH_FAKES_ENV) {
  const fakes = await startFakes();
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
      {
        env: { ...process.env, ...fakes.env, BENCH_FAKES_ENV: JSON.stringify(fakes.env) },
        stdio: 'inherit',
      },
    );
    process.exitCode = await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    await fakes.stop();
  }
} else {
  await measure(JSON.parse(process.env.BENCH_FAKES_ENV) as Record<string, string>);
}

async function measure(fakesEnv: Record<string, string>): Promise<void> {
  const counter = countStatements();
  const figures: BenchFigures = {};
  const database = await createBenchDatabase(values.postgres);
  try {
    const account = await seedAccount(database.store);
    await seedOnePushChannel(database.store, account.accountId);
    const config = loadConfig({
      ...database.env,
      ...fakesEnv,
      CLARION_RATE_LIMIT_PER_SECOND: '100000',
      CLARION_RATE_LIMIT_BURST: '100000',
      CLARION_LOG_LEVEL: 'silent',
    });
    const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
    const queue = JobQueue.forStore(database.store, systemClock);
    const app = await buildApp({ store: database.store, config, clock: systemClock, queue, secretKey });
    await app.ready();
    const logger = pino({ level: 'warn' });
    const providers = createPushProviders(
      config,
      systemClock,
      logger,
      await resolveVapidKeys(database.store.db, secretKey, config, systemClock.now()),
    );
    const accept = async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/notifications',
        headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify(ONE_PUSH_NOTIFICATION),
      });
      if (response.statusCode !== 201) throw new Error(`expected 201, got ${response.statusCode}: ${response.body}`);
    };
    // The poll's own statement is marked, and left out of the counts.
    const POLL_MARK = 'bench-poll';
    const sentCount = async () =>
      Number(
        (
          await sql<{
            n: number;
          }>`SELECT count(*) AS n /* ${sql.raw(POLL_MARK)} */ FROM notifications WHERE status = 'sent'`.execute(
            database.store.db,
          )
        ).rows[0]!.n,
      );
    const waitForSent = async (count: number) => {
      // A poll every 10 ms: its CPU stays a small part of what is measured.
      while ((await sentCount()) < count) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const workerStatements = () => counter.statements.filter((text) => !text.includes(POLL_MARK)).length;

    // Backlog: accepted with the worker stopped, then delivered all at once.
    for (let n = 0; n < backlogSize; n += 50)
      await Promise.all(Array.from({ length: Math.min(50, backlogSize - n) }, accept));
    counter.reset();
    const profiler = values['cpu-prof'] ? await startProfiler() : null;
    // The backends of this run's database (the pool's and the LISTEN connection), without the server's background
    // processes, which every database on a shared server uses.
    const backends = { backgroundProcesses: false };
    const databaseBefore = database.databaseUrl
      ? await postgresDatabaseCpuSeconds(database.databaseUrl, backends)
      : null;
    const before = process.cpuUsage();
    const started = performance.now();
    const worker = await startDeliveryWorker({
      store: database.store,
      queue,
      clock: systemClock,
      config,
      logger,
      providers,
      secretKey,
    });
    await waitForSent(backlogSize);
    const used = process.cpuUsage(before);
    if (databaseBefore !== null && database.databaseUrl) {
      const seconds = (await postgresDatabaseCpuSeconds(database.databaseUrl, backends)) - databaseBefore;
      figures['backlog: PostgreSQL backends CPU per notification (µs)'] = round((seconds * 1e6) / backlogSize);
    }
    figures['backlog: worker statements per notification'] = round(workerStatements() / backlogSize);
    figures['backlog: worker CPU per notification (µs)'] = round((used.user + used.system) / backlogSize);
    figures['backlog: notifications delivered per second'] = round(
      backlogSize / ((performance.now() - started) / 1000),
    );
    if (values.statements)
      console.error(
        histogram(
          counter.statements.filter((text) => !text.includes(POLL_MARK)),
          backlogSize,
        ),
      );

    // Trickle: the worker idle between notifications; the statements include the accept's.
    let delivered = backlogSize;
    counter.reset();
    const trickleBefore = process.cpuUsage();
    const acceptStatements: number[] = [];
    let firstTrickle: string[] = [];
    for (let n = 0; n < trickleSize; n += 1) {
      const mark = counter.statements.length;
      await accept();
      acceptStatements.push(counter.statements.length - mark);
      delivered += 1;
      await waitForSent(delivered);
      if (n === 1) firstTrickle = counter.statements.slice(mark).filter((text) => !text.includes(POLL_MARK));
    }
    const trickleUsed = process.cpuUsage(trickleBefore);
    if (profiler) await profiler.stop(values['cpu-prof']!);
    const acceptTotal = acceptStatements.reduce((sum, count) => sum + count, 0);
    figures['trickle: worker statements per notification'] = round((workerStatements() - acceptTotal) / trickleSize);
    figures['trickle: CPU per notification, accepted and delivered (µs)'] = round(
      (trickleUsed.user + trickleUsed.system) / trickleSize,
    );
    if (values.statements)
      console.error(firstTrickle.map((text) => text.replace(/\s+/g, ' ').slice(0, 160)).join('\n'));
    await worker.stop(1_000);
    await Promise.all(Object.values(providers).map((provider) => provider.close()));
    await app.close();
  } finally {
    await database.drop();
  }
  console.error(JSON.stringify(figures));
  printBenchResult(figures);
}

/** The inspector's CPU profiler on this process; `stop` writes the profile (open it in Chrome DevTools). */
async function startProfiler(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** Statements per notification by their first 70 characters, most frequent first. */
function histogram(statements: string[], notifications: number): string {
  const counts = new Map<string, number>();
  for (const text of statements) {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 70);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${(count / notifications).toFixed(2).padStart(6)}  ${key}`)
    .join('\n');
}
