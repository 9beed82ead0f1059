// Bulk import: where SQLite's time goes per new subscriber. Each variant inserts the same N
// subscribers (and, where named, one `subscriber.created` event each) into a fresh copy of a migrated SQLite file with
// raw better-sqlite3 one-row statements (the cheapest way SQLite offers), in transactions of 5,000 rows as
// `clarion subscribers import` commits, with the import connection's pragmas (src/cli/subscribers-import.ts). A
// variant drops one index, or changes one thing, so the difference to "as migrated" is what that thing costs.
// CPU of this process (user + system) per row, min over --runs, variants interleaved run by run.
//
//   node --import tsx bench/import-sqlite-cost.ts [--rows 200000] [--runs 3] [--only 0,4] [--quick]
//
// Ends with BENCH_RESULT {variant: µs of CPU per row}.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteDatabase } from '../src/store/sqlite/sqlite-driver.ts';
import { newId } from '../src/domain/ids.ts';
import { openStore, SQLITE_FILE_NAME } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { benchDevice } from './harness/fanout-channel.ts';
import { printBenchResult, round } from './harness/bench-result.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '3' },
    /** Comma-separated positions in `variants` (0-based), to repeat a few of them more often. */
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const rows = values.quick ? 5000 : Number(values.rows);
const runs = values.quick ? 1 : Number(values.runs);
const ROWS_PER_TRANSACTION = 5000;

interface Variant {
  name: string;
  /** Schema changes on the migrated copy before the timed inserts. */
  setup: string[];
  events: boolean;
  /** The token hash as bound: 64 hex characters, or the 32 bytes they spell. */
  binaryHash?: boolean;
  foreignKeys?: boolean;
}

/** subscribers as migrations leave it, with the token hash column's type and the unique key as given. */
function subscribersTable(hashType: string, unique = 'UNIQUE (channel_id, platform, token_hash)'): string[] {
  return [
    'DROP TABLE subscribers',
    `CREATE TABLE subscribers (
      id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), channel_id TEXT NOT NULL REFERENCES channels(id),
      platform TEXT NOT NULL, token TEXT NOT NULL, token_hash ${hashType} NOT NULL, push_to_start_token TEXT, timezone TEXT,
      locale TEXT, external_id TEXT, status TEXT NOT NULL, unsubscribe_reason TEXT, created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL, unsubscribed_at INTEGER, apns_environment TEXT, os_version TEXT, last_delivered_at INTEGER
      ${unique ? `, ${unique}` : ''}
    ) STRICT`,
    'CREATE INDEX subscribers_dispatch ON subscribers (channel_id, status, id, platform, created_at, timezone)',
    'CREATE INDEX subscribers_external_id ON subscribers (account_id, external_id)',
  ];
}

/** The schema before migration 0017: the token hash as 64 hex characters. */
const hex = subscribersTable('TEXT');
const variants: Variant[] = [
  { name: 'subscribers, hex TEXT hash (before 0017), no events', setup: hex, events: false },
  { name: '… without subscribers_dispatch', setup: [...hex, 'DROP INDEX subscribers_dispatch'], events: false },
  { name: '… without subscribers_external_id', setup: [...hex, 'DROP INDEX subscribers_external_id'], events: false },
  {
    name: '… without the (channel, platform, token_hash) unique index',
    setup: subscribersTable('TEXT', ''),
    events: false,
  },
  { name: '… token hash as 32-byte BLOB (0017)', setup: [], events: false, binaryHash: true },
  { name: '… foreign_keys off', setup: hex, events: false, foreignKeys: false },
  { name: 'subscribers + events, hex TEXT hash', setup: hex, events: true },
  { name: '… events without events_account', setup: [...hex, 'DROP INDEX events_account'], events: true },
  { name: '… events without events_unrelayed', setup: [...hex, 'DROP INDEX events_unrelayed'], events: true },
  {
    name: '… events without both',
    setup: [...hex, 'DROP INDEX events_account', 'DROP INDEX events_unrelayed'],
    events: true,
  },
];

const chosen = values.only ? values.only.split(',').map((position) => variants[Number(position)]!) : variants;
const dir = mkdtempSync(join(tmpdir(), 'clarion-import-cost-'));
try {
  const template = join(dir, 'template.sqlite');
  const store = openStore({ dataDir: dir });
  await migrateToLatest(store);
  await store.close();
  copyFileSync(join(dir, SQLITE_FILE_NAME), template);

  const devices = Array.from({ length: rows }, (_, n) => {
    const device = benchDevice(n);
    const hash = createHash('sha256').update(device.token).digest();
    return { ...device, hex: hash.toString('hex'), bytes: hash, ios: device.platform === 'ios', n };
  });
  const best = new Map<string, number>();
  for (let run = 0; run < runs; run += 1) {
    for (const variant of chosen) {
      const perRow = timeVariant(variant, template, join(dir, `run.sqlite`), devices);
      best.set(variant.name, Math.min(best.get(variant.name) ?? Infinity, perRow));
      process.stderr.write(`run ${run + 1} ${variant.name}: ${perRow.toFixed(2)} µs/row\n`);
    }
  }
  const result: Record<string, unknown> = { rows, runs };
  for (const [name, perRow] of best) {
    result[name] = round(perRow);
    process.stdout.write(`${perRow.toFixed(2).padStart(7)} µs/row  ${name}\n`);
  }
  printBenchResult(result);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function timeVariant(
  variant: Variant,
  template: string,
  file: string,
  devices: ReadonlyArray<{ platform: string; token: string; hex: string; bytes: Buffer; ios: boolean; n: number }>,
): number {
  rmSync(file, { force: true });
  rmSync(`${file}-wal`, { force: true });
  rmSync(`${file}-shm`, { force: true });
  copyFileSync(template, file);
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -131072');
  db.pragma('wal_autocheckpoint = 20000');
  db.pragma('foreign_keys = OFF');
  for (const statement of variant.setup) db.exec(statement);
  db.pragma(`foreign_keys = ${variant.foreignKeys === false ? 'OFF' : 'ON'}`);
  const now = Date.now();
  const accountId = newId('account', now);
  const channelId = newId('channel', now);
  db.prepare(`INSERT INTO accounts (id, name, plan, created_at, slug) VALUES (?, 'a', 'business', ?, ?)`).run(
    accountId,
    now,
    accountId.slice(4),
  );
  db.prepare(`INSERT INTO channels (id, account_id, code, name, created_at) VALUES (?, ?, 'c', 'c', ?)`).run(
    channelId,
    accountId,
    now,
  );
  const insertSubscriber = db.prepare(
    `INSERT INTO subscribers (id, account_id, channel_id, platform, token, token_hash, timezone, locale, external_id, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO events (id, account_id, type, data, created_at) VALUES (?, ?, 'subscriber.created', ?, ?)`,
  );
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const started = process.cpuUsage();
  begin.run();
  for (const device of devices) {
    const id = newId('subscriber', now);
    insertSubscriber.run(
      id,
      accountId,
      channelId,
      device.platform,
      device.token,
      variant.binaryHash ? device.bytes : device.hex,
      device.ios ? 'Europe/Berlin' : null,
      device.ios ? 'de-DE' : null,
      device.ios ? null : `user-${device.n}`,
      now,
      now,
    );
    if (variant.events)
      insertEvent.run(
        newId('event', now),
        accountId,
        `{"subscriberId":"${id}","channelCode":"c","platform":"${device.platform}","externalId":null,"createdAt":"x"}`,
        now,
      );
    if ((device.n + 1) % ROWS_PER_TRANSACTION === 0) {
      commit.run();
      begin.run();
    }
  }
  commit.run();
  const used = process.cpuUsage(started);
  db.close();
  return (used.user + used.system) / devices.length;
}
