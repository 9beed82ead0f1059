import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openStore, SQLITE_FILE_NAME, type Store } from '../../src/store/database.ts';
import { startSqliteCheckpointer } from '../../src/store/sqlite/sqlite-checkpointer.ts';

/**
 * `clarion serve` checkpoints SQLite's WAL from a thread of its own (src/store/sqlite/sqlite-checkpointer.ts): a COMMIT on
 * the serving event loop never copies the WAL into the database file and fsyncs it. Runs on both dialect runs: it
 * opens its own SQLite file whatever the dialect under test.
 */
describe('SQLite checkpoints off the serving connection', () => {
  let dataDir: string;
  let store: Store | null = null;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'clarion-checkpoint-'));
  });
  afterEach(async () => {
    await store?.close();
    store = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sizeOf = (suffix: string) => statSync(join(dataDir, SQLITE_FILE_NAME + suffix)).size;
  /**
   * Whether every frame of the WAL has been copied into the database file, read from the WAL-index (the -shm file,
   * https://www.sqlite.org/walformat.html): mxFrame at byte 16 of its header, nBackfill at byte 96, native order.
   */
  const checkpointComplete = () => {
    const index = readFileSync(join(dataDir, `${SQLITE_FILE_NAME}-shm`));
    const mxFrame = index.readUInt32LE(16);
    return mxFrame > 0 && index.readUInt32LE(96) === mxFrame;
  };
  /** One commit of ~4 MB: ~1,000 pages of 4 KiB, what used to trigger SQLite's automatic checkpoint in the COMMIT. */
  const writeFourMegabytes = async (db: Store['db']) => {
    await sql`CREATE TABLE IF NOT EXISTS filler (body BLOB)`.execute(db);
    await db.transaction().execute(async (trx) => {
      for (let n = 0; n < 1_100; n += 1) await sql`INSERT INTO filler VALUES (randomblob(3800))`.execute(trx);
    });
  };

  it('leaves the WAL to the checkpointer: the commit that takes it past 1,000 pages does not copy it into the database file', async () => {
    // The checkpointer's first turn is a minute away: whatever reaches the database file now was copied by the commit.
    store = openStore({ dataDir, checkpointIntervalMs: 60_000 });
    await writeFourMegabytes(store.db);
    expect(sizeOf('-wal')).toBeGreaterThan(4_000_000);
    expect(sizeOf('')).toBeLessThan(100_000);
  });

  it('checkpoints from its thread, and the next commits start the WAL over instead of growing it', async () => {
    store = openStore({ dataDir, checkpointIntervalMs: 20 });
    const db = store.db;
    let walAfterOne = 0;
    for (let round = 0; round < 4; round += 1) {
      const before = sizeOf('');
      await writeFourMegabytes(db);
      walAfterOne ||= sizeOf('-wal');
      await vi.waitFor(() => expect(checkpointComplete()).toBe(true), { timeout: 20_000, interval: 10 });
      expect(sizeOf('')).toBeGreaterThan(before + 4_000_000);
    }
    // Four commits of ~4 MB each went through a WAL the size of one: each began after a complete checkpoint.
    expect(sizeOf('-wal')).toBeLessThan(walAfterOne * 1.2);
    const [row] = (await sql<{ rows: number }>`SELECT count(*) AS rows FROM filler`.execute(db)).rows;
    expect(row?.rows).toBe(4_400);
  });

  it('keeps SQLite’s own checkpoints where no interval is given (the CLI)', async () => {
    store = openStore({ dataDir });
    await writeFourMegabytes(store.db);
    expect(sizeOf('')).toBeGreaterThan(4_000_000);
  });

  it('reports a failing checkpoint once, not at every turn, and stops cleanly', async () => {
    // Not a database: the thread opens it lazily, and every PASSIVE checkpoint then fails.
    const file = join(dataDir, 'not-a-database');
    writeFileSync(file, 'this is not an SQLite file, only text long enough to hold a header'.repeat(200));
    const onError = vi.fn();
    const checkpointer = startSqliteCheckpointer(file, 5, onError);
    await vi.waitFor(() => expect(onError).toHaveBeenCalledWith(expect.stringMatching(/not a database/)), {
      timeout: 10_000,
      interval: 10,
    });
    // Many more turns fail (every 5 ms) well within the minute between reports.
    await vi.waitFor(() => expect(checkpointer.failedTurns).toBeGreaterThanOrEqual(10), {
      timeout: 10_000,
      interval: 10,
    });
    await checkpointer.stop();
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('reports a thread that could not open its connection', async () => {
    const onError = vi.fn();
    const checkpointer = startSqliteCheckpointer(join(dataDir, 'missing-folder', 'clarion.db'), 5, onError);
    await vi.waitFor(
      () => expect(onError).toHaveBeenCalledWith(expect.stringMatching(/directory does not exist|unable to open/i)),
      { timeout: 10_000, interval: 10 },
    );
    await checkpointer.stop();
  });
});
