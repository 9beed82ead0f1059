// The database work per push (target: ≤ 10 µs): the delivery worker runs in this process against SQLite
// (or PostgreSQL with --postgres) with a Kysely plugin that times every statement from before it is compiled to its
// result, and counts them by kind. The fakes run in their own process. On SQLite the statements run synchronously in
// this process, so their time is CPU time; on PostgreSQL it includes the round trip.
//
//   node --import tsx bench/fanout-db-time.ts [--subscribers 20000] [--concurrency N] [--postgres URL] [--quick]
//
// Ends with BENCH_RESULT {"sqliteExecutionUsPerPush" (SQLite's own CPU time), "statementUsPerPush" (from building each statement to
// its result, waits for the connection included), "statementsPerPush", "statements": {kind: count}, …}. Those count every
// statement of the measured delivery; the "product…" keys count only the delivery's own (dispatch, send batches, settle):
// not this benchmark's poll of the notification's status nor the webhook relay's poll of the events table, which cost
// per second of the run rather than per push and are printed apart ("…MsPerSecond"). With plugins, Kysely builds each
// prepared statement anew (src/store/prepared-query.ts), so "statementUsPerPush" also counts building it, which
// production does not; "sqliteExecutionUsPerPush" is the database's own work.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { SqliteDatabase } from '../src/store/sqlite/sqlite-driver.ts';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import pino from 'pino';
import { loadConfig } from '../src/config/load-config.ts';
import { resolveSecretKey } from '../src/config/secret-key.ts';
import { createPushProviders } from '../src/delivery/built-in-app.ts';
import { systemClock } from '../src/domain/clock.ts';
import { JobQueue } from '../src/queue/job-queue.ts';
import { startDeliveryWorker } from '../src/worker.ts';
import { ensureFakeTls } from '../tools/fakes/index.ts';
import { createBenchDatabase } from './harness/bench-database.ts';
import { printBenchResult, roundTo } from './harness/bench-result.ts';
import { deliverNotification } from './harness/deliver-notification.ts';
import { seedFanoutChannel } from './harness/fanout-channel.ts';
import { startFakes } from './harness/fakes-process.ts';

// The provider clients run in this process, so it must trust the fakes' CA from its start: re-run with it.
const caPath = ensureFakeTls().caCertPath;
if (process.env.NODE_EXTRA_CA_CERTS !== caPath) {
  const rerun = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caPath },
  });
  process.exit(rerun.status ?? 1);
}

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '20000' },
    concurrency: { type: 'string' },
    latency: { type: 'string', default: '20-50' },
    postgres: { type: 'string' },
    // Writes a V8 CPU profile of the measured delivery only (start-up and warm-up excluded) to this file.
    profile: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const size = values.quick ? 2000 : Number(values.subscribers);

/** Times each statement from transformQuery (before compiling) to transformResult (after executing). */
class StatementTimer implements KyselyPlugin {
  readonly started = new Map<unknown, { kind: string; at: number }>();
  readonly byKind = new Map<string, { count: number; ms: number }>();
  counting = false;

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.counting) this.started.set(args.queryId, { kind: kindOf(args.node), at: performance.now() });
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const start = this.started.get(args.queryId);
    if (start) {
      this.started.delete(args.queryId);
      const entry = this.byKind.get(start.kind) ?? { count: 0, ms: 0 };
      entry.count += 1;
      entry.ms += performance.now() - start.at;
      this.byKind.set(start.kind, entry);
    }
    return args.result;
  }
}

/**
 * Whose statement it is: the delivery's own (`product`), this benchmark's poll of the notification's status
 * (bench/harness/deliver-notification.ts), or the webhook relay's (src/store/event-relay-queries.ts, webhooks-queries.ts),
 * which polls the events table on its own timer. By SQL text on SQLite, by kind for the plugin's figures.
 */
type Owner = 'product' | 'bench poll' | 'relay';

function ownerOfSql(text: string): Owner {
  if (/^select "status", "delivered_count", "failed_count" from "notifications"/.test(text)) return 'bench poll';
  if (/^(select .* from|update) "events"|"webhook_endpoints"/.test(text)) return 'relay';
  return 'product';
}

function ownerOfKind(kind: string): Owner {
  return /^(select|update) events\b|webhook_endpoints/.test(kind) ? 'relay' : 'product';
}

/** "select subscribers", "update jobs", "raw" (sql`` statements: the claim, NOTIFY). */
function kindOf(node: RootOperationNode): string {
  const table = (from: unknown): string => {
    const found = JSON.stringify(from ?? '').match(/"name":"(\w+)"/);
    return found ? found[1]! : '?';
  };
  switch (node.kind) {
    case 'SelectQueryNode':
      return `select ${table(node.from)}${node.orderBy ? ' (ordered)' : ''}`;
    case 'InsertQueryNode':
      return `insert ${table(node.into)}`;
    case 'UpdateQueryNode':
      return `update ${table(node.table)}`;
    case 'DeleteQueryNode':
      return `delete ${table(node.from)}`;
    default:
      return 'raw';
  }
}

/**
 * SQLite executes synchronously in this process: the process CPU time of every statement's run()/all()/iterate() is
 * the database's CPU, apart from the plugin's figure (which also counts waiting for the one connection while another
 * job's transaction holds it, and Kysely compiling the statement).
 */
const sqliteExecution = { ms: 0, count: 0, counting: false, bySql: new Map<string, { ms: number; count: number }>() };
{
  const probe = new SqliteDatabase(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate'] as const) {
    const original = statementPrototype[method]!;
    statementPrototype[method] = function timed(this: unknown, ...args: unknown[]) {
      if (!sqliteExecution.counting) return original.apply(this, args);
      // CPU time, not wall time: on a busy machine a statement preempted half-way would count the other process's turn.
      const at = process.cpuUsage();
      try {
        return original.apply(this, args);
      } finally {
        const spent = process.cpuUsage(at);
        const ms = (spent.user + spent.system) / 1000;
        sqliteExecution.ms += ms;
        sqliteExecution.count += 1;
        const key = String((this as { source?: string }).source)
          .replace(/\s+/g, ' ')
          .trim();
        const entry = sqliteExecution.bySql.get(key) ?? { ms: 0, count: 0 };
        entry.ms += ms;
        entry.count += 1;
        sqliteExecution.bySql.set(key, entry);
      }
    };
  }
}

const fakes = await startFakes({ latency: values.latency! });
const bench = await createBenchDatabase(values.postgres);
const channel = await seedFanoutChannel(bench.store, size);
const warmUp = await seedFanoutChannel(bench.store, Math.min(size, 4000));
const timer = new StatementTimer();
const timedStore = { ...bench.store, db: bench.store.db.withPlugin(timer) };
const config = {
  ...loadConfig({ ...process.env, ...fakes.env, ...bench.env }),
  ...(values.concurrency ? { workerConcurrency: Number(values.concurrency) } : {}),
  queuePollInterval: 100,
};
const logger = pino({ level: 'warn' });
const providers = createPushProviders(config, systemClock, logger);
const queue = JobQueue.forStore(timedStore, systemClock);
const worker = await startDeliveryWorker({
  store: timedStore,
  queue,
  clock: systemClock,
  config,
  logger,
  providers,
  secretKey: resolveSecretKey(config.secretKey, config.dataDir),
});
let result: Record<string, unknown>;
try {
  await deliverNotification(bench, warmUp);
  const profiler = values.profile ? new Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  timer.counting = true;
  sqliteExecution.counting = bench.store.dialect === 'sqlite';
  const delivery = await deliverNotification(bench, channel);
  timer.counting = false;
  sqliteExecution.counting = false;
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(values.profile!, JSON.stringify(profile));
    profiler.disconnect();
  }
  const kinds = [...timer.byKind].sort((a, b) => b[1].ms - a[1].ms);
  const totalMs = kinds.reduce((sum, [, entry]) => sum + entry.ms, 0);
  const statements = kinds.reduce((sum, [, entry]) => sum + entry.count, 0);
  const productKinds = kinds.filter(([kind]) => ownerOfKind(kind) === 'product');
  const productMs = productKinds.reduce((sum, [, entry]) => sum + entry.ms, 0);
  const productStatements = productKinds.reduce((sum, [, entry]) => sum + entry.count, 0);
  const usPerPush = (ms: number) => `${((ms * 1000) / size).toFixed(2).padStart(6)} µs/push`;
  for (const [kind, entry] of kinds) {
    process.stderr.write(
      `${ownerOfKind(kind).padEnd(10)} ${kind.padEnd(34)} ${String(entry.count).padStart(7)} statements ${entry.ms.toFixed(0).padStart(7)} ms ${usPerPush(entry.ms)}\n`,
    );
  }
  // SQLite's own time by statement text and owner: every product statement, so a batch's costs add up here.
  const sqliteByOwner = new Map<Owner, number>();
  for (const [text, { ms, count }] of [...sqliteExecution.bySql].sort((a, b) => b[1].ms - a[1].ms)) {
    const owner = ownerOfSql(text);
    sqliteByOwner.set(owner, (sqliteByOwner.get(owner) ?? 0) + ms);
    if (ms >= 0.5)
      process.stderr.write(
        `sqlite ${owner.padEnd(10)} ${String(count).padStart(5)}× ${ms.toFixed(1).padStart(7)} ms ${usPerPush(ms)}  ${text.slice(0, 90)}\n`,
      );
  }
  const perSecond = (ms: number) => roundTo(ms / delivery.seconds, 2);
  process.stderr.write(
    bench.store.dialect === 'sqlite'
      ? `product: ${usPerPush(productMs)} statement time, ${usPerPush(sqliteByOwner.get('product') ?? 0)} SQLite; per second of the ${delivery.seconds.toFixed(1)} s run, ` +
          `not per push: the benchmark's poll ${perSecond(sqliteByOwner.get('bench poll') ?? 0)} ms, the webhook relay ${perSecond(sqliteByOwner.get('relay') ?? 0)} ms of SQLite\n`
      : `product: ${usPerPush(productMs)} statement time (round trips included) in the ${delivery.seconds.toFixed(1)} s run\n`,
  );
  result = {
    dialect: bench.store.dialect,
    subscribers: size,
    delivered: delivery.delivered,
    deliverySeconds: roundTo(delivery.seconds, 2),
    statementUsPerPush: roundTo((totalMs * 1000) / size, 2),
    ...(bench.store.dialect === 'sqlite'
      ? { sqliteExecutionUsPerPush: roundTo((sqliteExecution.ms * 1000) / size, 2) }
      : {}),
    statementsPerPush: roundTo(statements / size, 4),
    productStatementUsPerPush: roundTo((productMs * 1000) / size, 2),
    ...(bench.store.dialect === 'sqlite'
      ? {
          productSqliteExecutionUsPerPush: roundTo(((sqliteByOwner.get('product') ?? 0) * 1000) / size, 2),
          benchPollSqliteMsPerSecond: perSecond(sqliteByOwner.get('bench poll') ?? 0),
          relaySqliteMsPerSecond: perSecond(sqliteByOwner.get('relay') ?? 0),
        }
      : {}),
    productStatementsPerPush: roundTo(productStatements / size, 4),
    statements: Object.fromEntries(kinds.map(([kind, entry]) => [kind, entry.count])),
  };
} finally {
  await worker.stop(1000);
  await Promise.all(Object.values(providers).map((provider) => provider.close()));
  await fakes.stop();
  await bench.drop();
}
printBenchResult(result);
