// The SQLite drivers this Node offers, side by side on Clarion's two hot shapes of statement, so the choice made in
// src/store/sqlite/sqlite-driver.ts rests on figures (docs/deploy.md, "Node.js versions"):
// - better-sqlite3, the build src/store/sqlite/sqlite-driver.ts loads on this Node (13 on Node 22+, 12 on Node 20);
// - node:sqlite, Node's built-in module (Node 22.13 and later without a flag), when this Node has it.
//
// Each runs on a WAL file with the serving connection's pragmas (src/store/sqlite/sqlite-store.ts):
// - accept: one transaction per notification, as POST /notifications writes (BEGIN IMMEDIATE; the notification row,
//   its job row, the month's usage counter; COMMIT): CPU µs per accept;
// - fan-out: a send batch of 500 subscribers read by id and their last-delivered time written, then COMMIT
//   (src/store/subscribers-queries.ts): CPU µs per subscriber;
// - open: a fresh `node` that loads the driver, opens the file and runs one query: wall ms, median of 5;
// - backup: the online backup API copying the fan-out database: wall ms (null when the driver has none).
//
//   node --import tsx bench/sqlite-drivers.ts [--quick]
//
// Ends with BENCH_RESULT {"<driver> <figure>": number, …, "node": version}.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SQLITE_DRIVER_PACKAGE, SqliteDatabase, sqliteDriverPath } from '../src/store/sqlite/sqlite-driver.ts';
import { median, printBenchResult, roundTo } from './harness/bench-result.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const accepts = values.quick ? 2_000 : 20_000;
const subscribers = values.quick ? 5_000 : 50_000;
const BATCH = 500;

/** What the benchmark needs of a driver: both expose these, with different spellings of the same calls. */
interface Driver {
  name: string;
  exec(sql: string): void;
  prepare(sql: string): { run(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
  backup(file: string): Promise<void> | null;
  close(): void;
  /** Script for a fresh `node -e` that loads the driver, opens FILE and runs one query. */
  openScript: string;
}

function betterSqlite3(file: string): Driver {
  const database = new SqliteDatabase(file);
  return {
    name: `better-sqlite3 (${SQLITE_DRIVER_PACKAGE})`,
    exec: (sql) => database.exec(sql),
    prepare: (sql) => database.prepare(sql),
    backup: (target) => database.backup(target).then(() => undefined),
    close: () => database.close(),
    openScript: `const D = require(${JSON.stringify(sqliteDriverPath())}); const d = new D(process.argv[1]); d.pragma('journal_mode = WAL'); d.prepare('select count(*) from subscribers').get();`,
  };
}

/** What the benchmark uses of node:sqlite (its types are not in @types/node for Node 20, the oldest line supported). */
interface NodeSqliteModule {
  DatabaseSync: new (file: string) => { exec(sql: string): void; prepare(sql: string): unknown; close(): void };
  backup?: (database: unknown, file: string) => Promise<number>;
}

async function nodeSqlite(file: string): Promise<Driver | null> {
  let module: NodeSqliteModule;
  try {
    // Node 22.13+ loads it without a flag; Node 22 warns that it is experimental, which a benchmark may ignore. The
    // specifier is a variable so that the type check does not look for it.
    process.removeAllListeners('warning');
    const specifier = 'node:sqlite';
    module = (await import(specifier)) as NodeSqliteModule;
  } catch {
    return null;
  }
  const database = new module.DatabaseSync(file);
  return {
    name: 'node:sqlite',
    exec: (sql) => database.exec(sql),
    prepare: (sql) => database.prepare(sql) as unknown as ReturnType<Driver['prepare']>,
    backup: (target) => (module.backup ? module.backup(database, target).then(() => undefined) : null),
    close: () => database.close(),
    openScript: `const { DatabaseSync } = require('node:sqlite'); const d = new DatabaseSync(process.argv[1]); d.exec('pragma journal_mode = WAL'); d.prepare('select count(*) from subscribers').get();`,
  };
}

function cpuMicros(work: () => void): number {
  const at = process.cpuUsage();
  work();
  const spent = process.cpuUsage(at);
  return spent.user + spent.system;
}

async function measure(
  open: (file: string) => Driver | Promise<Driver | null>,
): Promise<Record<string, number | null> | null> {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-sqlite-drivers-'));
  try {
    const file = join(dir, 'bench.db');
    const driver = await open(file);
    if (!driver) return null;
    for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000', 'foreign_keys = ON'])
      driver.exec(`pragma ${pragma}`);
    driver.exec(`
      create table notifications (id text primary key, account_id text not null, channel_id text not null, content text not null, created_at integer not null);
      create table jobs (id integer primary key, kind text not null, payload text not null, run_at integer not null, state text not null);
      create table usage (account_id text primary key, used integer not null);
      create table subscribers (id text primary key, channel_id text not null, token text not null, status text not null, last_delivered_at integer);
      insert into usage values ('acc_1', 0);`);

    const insertNotification = driver.prepare('insert into notifications values (?, ?, ?, ?, ?)');
    const insertJob = driver.prepare('insert into jobs (kind, payload, run_at, state) values (?, ?, ?, ?)');
    const charge = driver.prepare('update usage set used = used + 1 where account_id = ?');
    const content = JSON.stringify({
      title: 'Order #42 shipped',
      body: 'Your parcel is on its way and arrives tomorrow.',
      url: 'https://example.com/orders/42',
    });
    const acceptMicros = cpuMicros(() => {
      for (let index = 0; index < accepts; index += 1) {
        driver.exec('begin immediate');
        insertNotification.run(`ntf_${index}`, 'acc_1', 'chn_1', content, Date.now());
        insertJob.run('dispatch', `{"notificationId":"ntf_${index}"}`, Date.now(), 'available');
        charge.run('acc_1');
        driver.exec('commit');
      }
    });

    const insertSubscriber = driver.prepare('insert into subscribers values (?, ?, ?, ?, null)');
    driver.exec('begin');
    for (let index = 0; index < subscribers; index += 1)
      insertSubscriber.run(
        `sub_${String(index).padStart(8, '0')}`,
        'chn_1',
        `token-${index}-${'x'.repeat(140)}`,
        'active',
      );
    driver.exec('commit');
    const read = driver.prepare(
      'select id, token, status from subscribers where id in (select value from json_each(?))',
    );
    const markDelivered = driver.prepare(
      'update subscribers set last_delivered_at = ? where id in (select value from json_each(?))',
    );
    const batches: string[] = [];
    for (let start = 0; start < subscribers; start += BATCH) {
      batches.push(
        JSON.stringify(
          Array.from(
            { length: Math.min(BATCH, subscribers - start) },
            (_, offset) => `sub_${String(start + offset).padStart(8, '0')}`,
          ),
        ),
      );
    }
    const fanoutMicros = cpuMicros(() => {
      for (const batch of batches) {
        driver.exec('begin immediate');
        read.all(batch);
        markDelivered.run(Date.now(), batch);
        driver.exec('commit');
      }
    });

    const backupStarted = performance.now();
    const backup = driver.backup(join(dir, 'backup.db'));
    const backupMs = backup ? (await backup, performance.now() - backupStarted) : null;
    driver.close();

    const openMs = median(
      Array.from({ length: 5 }, () => {
        const started = performance.now();
        execFileSync(process.execPath, ['--no-warnings', '-e', driver.openScript, file]);
        return performance.now() - started;
      }),
    );
    return {
      [`${driver.name} accept µs`]: roundTo(acceptMicros / accepts, 1),
      [`${driver.name} fan-out µs per subscriber`]: roundTo(fanoutMicros / subscribers, 2),
      [`${driver.name} open ms`]: roundTo(openMs, 1),
      [`${driver.name} backup ms`]: backupMs === null ? null : roundTo(backupMs, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const figures: Record<string, unknown> = { node: process.version };
for (const open of [betterSqlite3, nodeSqlite]) {
  const result = await measure(open);
  if (result) Object.assign(figures, result);
}
for (const [name, value] of Object.entries(figures)) console.log(`${name}: ${value}`);
printBenchResult(figures);
