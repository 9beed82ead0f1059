// What SQLite itself costs per row for a send batch's two
// per-row statements (src/store/subscribers-queries.ts: the batch read and the last-delivered UPDATE), measured in
// isolation on a seeded channel, without Kysely, the queue or the network: the floor that bench/fanout-db-time.ts's
// per-push figure cannot go under while a batch reads and updates one subscriber row per push. Process CPU time, best
// of 3 passes over every batch, per row.
//
//   node --import tsx bench/sqlite-batch-floor.ts [--quick] [--subscribers 30000] [--batch 500]
//
// Ends with BENCH_RESULT {"batchReadUsPerRow", "idToRowidUsPerRow", "readByRowidUsPerRow", "jsonEachUsPerRow",
// "boundListReadUsPerRow", "lastDeliveredUpdateUsPerRow", "updateByRowidUsPerRow", "commitUsPerRow"}.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteDatabase, type SqliteStatement } from '../src/store/sqlite/sqlite-driver.ts';
import { SQLITE_FILE_NAME } from '../src/store/database.ts';
import { createBenchDatabase } from './harness/bench-database.ts';
import { printBenchResult, roundTo } from './harness/bench-result.ts';
import { seedFanoutChannel } from './harness/fanout-channel.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    subscribers: { type: 'string' },
    batch: { type: 'string', default: '500' },
  },
});
const size = Number(values.subscribers ?? (values.quick ? 2000 : 30000));
const batchSize = Number(values.batch);

const bench = await createBenchDatabase(undefined);
const channel = await seedFanoutChannel(bench.store, size);
await bench.store.close();
const db = new SqliteDatabase(join(bench.dataDir, SQLITE_FILE_NAME));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');

// The batches a dispatch makes: ids in order (src/delivery/dispatch-job.ts pages by id), one platform per batch.
const ids = db
  .prepare('SELECT id FROM subscribers WHERE channel_id = ? ORDER BY platform, id')
  .pluck()
  .all(channel.channelId) as string[];
const rowidOf = db.prepare('SELECT rowid FROM subscribers WHERE id = ?').pluck();
const batches: string[][] = [];
for (let start = 0; start < ids.length; start += batchSize) batches.push(ids.slice(start, start + batchSize));
const idJson = batches.map((batch) => JSON.stringify(batch));
const rowidJson = batches.map((batch) => JSON.stringify(batch.map((id) => rowidOf.get(id))));

/** µs of process CPU per row, best of 3 passes over every batch. */
function perRow(pass: () => void): number {
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const at = process.cpuUsage();
    pass();
    const spent = process.cpuUsage(at);
    best = Math.min(best, (spent.user + spent.system) / ids.length);
  }
  return roundTo(best, 3);
}

const COLUMNS = 'id, token, status, apns_environment';
const read = db.prepare(`SELECT ${COLUMNS} FROM subscribers WHERE id IN (SELECT value FROM json_each(?))`);
const idToRowid = db.prepare('SELECT rowid FROM subscribers WHERE id IN (SELECT value FROM json_each(?))');
const readByRowid = db.prepare(`SELECT ${COLUMNS} FROM subscribers WHERE rowid IN (SELECT value FROM json_each(?))`);
const jsonEach = db.prepare('SELECT value FROM json_each(?)');
const boundList = db.prepare(
  `SELECT ${COLUMNS} FROM subscribers WHERE id IN (${Array.from({ length: batchSize }, () => '?').join(', ')})`,
);
const update = db.prepare('UPDATE subscribers SET last_delivered_at = ? WHERE id IN (SELECT value FROM json_each(?))');
const updateByRowid = db.prepare(
  'UPDATE subscribers SET last_delivered_at = ? WHERE rowid IN (SELECT value FROM json_each(?))',
);
let at = Date.now();

for (const text of [read.source, idToRowid.source]) {
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${text}`).all('[]') as Array<{ detail: string }>;
  process.stderr.write(`${text}\n  plan: ${plan.map((row) => row.detail).join(' | ')}\n`);
}

const fullBatches = batches.filter((batch) => batch.length === batchSize);
// The UPDATE and its COMMIT apart: the COMMIT appends the pages the UPDATE dirtied to the WAL.
let updateUs = 0;
let commitUs = 0;
const updateAndCommit = (statement: SqliteStatement, lists: string[]) => {
  updateUs = 0;
  commitUs = 0;
  for (const list of lists) {
    db.exec('BEGIN IMMEDIATE');
    const before = process.cpuUsage();
    statement.run((at += 1), list);
    const updated = process.cpuUsage(before);
    db.exec('COMMIT');
    const committed = process.cpuUsage(before);
    updateUs += updated.user + updated.system;
    commitUs += committed.user + committed.system - (updated.user + updated.system);
  }
};
// Figures of the last of 3 passes (each UPDATE sets a new value, so every pass writes every row).
const updated = (statement: SqliteStatement, lists: string[]) => {
  for (let round = 0; round < 3; round += 1) updateAndCommit(statement, lists);
  return { update: roundTo(updateUs / ids.length, 3), commit: roundTo(commitUs / ids.length, 3) };
};
const byId = updated(update, idJson);
const byRowid = updated(updateByRowid, rowidJson);
const result = {
  subscribers: size,
  batch: batchSize,
  batchReadUsPerRow: perRow(() => idJson.forEach((list) => read.all(list))),
  idToRowidUsPerRow: perRow(() => idJson.forEach((list) => idToRowid.all(list))),
  readByRowidUsPerRow: perRow(() => rowidJson.forEach((list) => readByRowid.all(list))),
  jsonEachUsPerRow: perRow(() => idJson.forEach((list) => jsonEach.all(list))),
  // Full batches only (the statement has batchSize parameters), per row of those.
  boundListReadUsPerRow: roundTo(
    (perRow(() => fullBatches.forEach((batch) => boundList.all(...batch))) * ids.length) /
      (fullBatches.length * batchSize),
    3,
  ),
  lastDeliveredUpdateUsPerRow: byId.update,
  commitUsPerRow: byId.commit,
  updateByRowidUsPerRow: byRowid.update,
};
db.close();
await bench.drop();
printBenchResult(result);
