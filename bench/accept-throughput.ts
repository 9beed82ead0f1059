// Accept-path benchmark: what POST /api/v1/notifications costs, on SQLite and (with --postgres)
// on PostgreSQL.
//   1. SQL statements per accepted notification, counted at the drivers (BEGIN/COMMIT included), with and without
//      an Idempotency-Key, the app in this process (inject).
//   2. `clarion serve --api` in its own process: autocannon with 50 connections as fast as it goes (req/s, and
//      requests per CPU-second of the server process = req/s per core), then an even 1,000 req/s (p99 latency, and
//      server CPU per request at the same rate for both dialects), and the same fixed rate on GET /healthz: the p99
//      floor this machine and load generator give any request.
//      On PostgreSQL the database's CPU is counted too: the benchmark database's backends and the server's background
//      processes (bench/harness/process-usage.ts, postgresDatabaseCpuSeconds).
// The channel has one Android subscriber; no worker runs, so only accepting is measured.
//
//   node --import tsx bench/accept-throughput.ts [--quick] [--postgres postgres://…] [--seconds 10] [--cpu-prof DIR]
//   BENCH_CLARION_BIN=/path/to/other/checkout/bin/clarion.js …   # the same load against another build (before/after)
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  benchDialects,
  createBenchDatabase,
  ONE_PUSH_NOTIFICATION,
  seedAccount,
  seedOnePushChannel,
  type BenchDatabase,
} from './harness/bench-database.ts';
import { printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { startClarion } from './harness/clarion-process.ts';
import { inProcessAcceptApp } from './harness/in-process-accept.ts';
import { openLoopLoad } from './harness/open-loop-load.ts';
import { postgresDatabaseCpuSeconds } from './harness/process-usage.ts';
import { countStatements } from './harness/statement-counter.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    seconds: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const seconds = Number(values.seconds ?? (values.quick ? 1 : 10));
const counter = countStatements();
const figures: BenchFigures = {};
const body = JSON.stringify({ ...ONE_PUSH_NOTIFICATION, data: { orderId: '1234' } });

for (const dialect of benchDialects(values.postgres)) {
  const database = await createBenchDatabase(dialect === 'postgres' ? values.postgres : undefined);
  try {
    const account = await seedAccount(database.store);
    await seedOnePushChannel(database.store, account.accountId);
    // Statements are counted in this process, on this checkout's code: not when the server is another checkout's.
    if (!process.env.BENCH_CLARION_BIN)
      Object.assign(figures, await countPerNotification(database, account.secretKey, dialect));
    Object.assign(figures, await measureServer(database, account.secretKey, dialect));
  } finally {
    await database.drop();
  }
}
printBenchResult(figures);

async function countPerNotification(
  database: BenchDatabase,
  secretKey: string,
  dialect: string,
): Promise<BenchFigures> {
  const { app, send } = await inProcessAcceptApp(database, secretKey, body);
  // The first request fills what is filled once (the key's last use, caches); the steady state is what counts.
  await send();
  const requests = 20;
  counter.reset();
  for (let n = 0; n < requests; n += 1) await send();
  const plain = counter.count() / requests;
  if (process.env.BENCH_PRINT_STATEMENTS)
    console.error(counter.statements.slice(0, counter.count() / requests).join('\n'));
  counter.reset();
  for (let n = 0; n < requests; n += 1) await send(`bench-${Date.now()}-${n}`);
  const idempotent = counter.count() / requests;
  // 50 at once, as the load sends them: on SQLite they share commits (src/store/sqlite/group-commit.ts).
  counter.reset();
  await Promise.all(Array.from({ length: 50 }, () => send()));
  const together = counter.count() / 50;
  await app.close();
  console.error(
    `${dialect}: ${plain} statements per accepted notification one at a time, ${together} 50 at once, ${idempotent} with an Idempotency-Key`,
  );
  return {
    [`${dialect} statements per notification`]: plain,
    [`${dialect} statements per notification, 50 at once`]: together,
    [`${dialect} statements per notification, idempotency key`]: idempotent,
  };
}

async function measureServer(database: BenchDatabase, secretKey: string, dialect: string): Promise<BenchFigures> {
  const server = await startClarion({
    roles: ['api'],
    env: { ...database.env, CLARION_LOG_LEVEL: 'info' },
    nodeArgs: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [],
  });
  const loadOptions = {
    url: `${server.url}/api/v1/notifications`,
    method: 'POST',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body,
  };
  const load = (options: { connections: number; duration: number }) => autocannon({ ...loadOptions, ...options });
  try {
    await load({ connections: 10, duration: 1 });
    const cpuBefore = server.cpuSeconds();
    const dbBefore = database.databaseUrl ? await postgresDatabaseCpuSeconds(database.databaseUrl) : 0;
    const flat = await load({ connections: 50, duration: seconds });
    const cpu = server.cpuSeconds() - cpuBefore;
    const dbCpu = database.databaseUrl ? (await postgresDatabaseCpuSeconds(database.databaseUrl)) - dbBefore : 0;
    if (flat.non2xx > 0 || flat.errors > 0)
      throw new Error(`${flat.non2xx} non-2xx answers and ${flat.errors} errors under load`);
    const accepted = flat['2xx'];
    // An even 1,000 req/s, each request timed from when it was due (bench/harness/open-loop-load.ts). Its server CPU
    // per request compares the dialects at the same arrival rate: the load above runs each as fast as it goes, and a
    // server's CPU per request falls with the rate (more requests share each wake-up and, on SQLite, each commit).
    const pacedCpuBefore = server.cpuSeconds();
    const paced = await openLoopLoad({
      url: server.url,
      rate: 1000,
      seconds,
      connections: 50,
      request: { method: 'POST', path: '/api/v1/notifications', headers: loadOptions.headers, body },
    });
    const pacedCpu = server.cpuSeconds() - pacedCpuBefore;
    if (paced.statuses['201'] !== paced.sent) throw new Error(`at 1,000 req/s: ${JSON.stringify(paced.statuses)}`);
    // The floor for that p99: the same load on a route that does nothing (no database, no body), so what the
    // machine, the load generator in this process and Fastify give any request is told apart from the accept path.
    const floor = await openLoopLoad({
      url: server.url,
      rate: 1000,
      seconds,
      connections: 50,
      request: { method: 'GET', path: '/healthz' },
    });
    const result: BenchFigures = {
      [`${dialect} accept req/s (50 connections)`]: round(accepted / flat.duration),
      [`${dialect} accept req per server CPU-second (req/s per core)`]: round(accepted / cpu),
      [`${dialect} server CPU per request (µs)`]: round((cpu / accepted) * 1e6),
      [`${dialect} server CPU per request at an even 1,000 req/s (µs)`]: round((pacedCpu / paced.sent) * 1e6),
      [`${dialect} accept p99 at 1,000 req/s (ms)`]: paced.latency.p99,
      [`${dialect} accept p50 at 1,000 req/s (ms)`]: paced.latency.p50,
      [`${dialect} GET /healthz p99 at 1,000 req/s, the floor (ms)`]: floor.latency.p99,
    };
    if (dialect === 'postgres') {
      result['postgres database CPU per request (µs)'] = round((dbCpu / accepted) * 1e6);
      result['postgres accept req per CPU-second, database included'] = round(accepted / (cpu + dbCpu));
    }
    console.error(`${dialect}: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await server.stop();
  }
}
