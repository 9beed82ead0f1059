import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, SQLITE_FILE_NAME, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

/**
 * The SQLite file holds sealed webhook secrets, key hashes and sessions, so it and its WAL and shared-memory files
 * are readable by the owner only (the usual umask 022 would leave them world-readable). Runs on both dialect runs:
 * it opens its own SQLite file whatever the dialect under test.
 */
describe('SQLite data files', () => {
  let dataDir: string;
  let previousUmask: number;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'clarion-modes-'));
    previousUmask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(previousUmask);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const modeOf = (suffix: string) => statSync(join(dataDir, SQLITE_FILE_NAME + suffix)).mode & 0o777;
  const write = async (store: Store) => {
    await sql`CREATE TABLE IF NOT EXISTS probe (n INTEGER)`.execute(store.db);
    await sql`INSERT INTO probe VALUES (1)`.execute(store.db);
  };

  it('creates the database, its -wal and its -shm with mode 0600, also when they are made again after a reopen', async () => {
    const store = openStore({ dataDir });
    await migrateToLatest(store);
    await write(store);
    expect({ db: modeOf(''), wal: modeOf('-wal'), shm: modeOf('-shm') }).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    await store.close();

    // Closing checkpoints and deletes the -wal and -shm; the next open makes them anew.
    const reopened = openStore({ dataDir });
    await write(reopened);
    expect({ db: modeOf(''), wal: modeOf('-wal'), shm: modeOf('-shm') }).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    await reopened.close();
  });
});
