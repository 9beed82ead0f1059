import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_KEY_FILE } from '../../config/secret-key.ts';
import { SQLITE_FILE_NAME } from '../database.ts';
import { SqliteDatabase } from './sqlite-driver.ts';

/**
 * SQLite backups (`clarion backup`, `clarion restore`; docs/deploy.md, "Backups"). A backup is itself a SQLite
 * database: a consistent copy made with SQLite's online backup API (https://www.sqlite.org/backup.html, through
 * better-sqlite3's `backup()`), so it runs beside a live server, whose WAL writes go on meanwhile, plus one table,
 * `clarion_backup`, describing it — and holding the instance's secret key when it comes from the data directory.
 *
 * Why the key travels with the data by default: without it every sealed secret in the copy (webhook signing
 * secrets, the VAPID private key, provider credentials) is unreadable, and a backup that cannot be restored alone is
 * one an operator finds out about on the worst day. The cost: whoever holds the file holds the key — it is written
 * owner-only (0600) and must be kept like the key itself. `--without-secret-key` leaves it out for operators who keep
 * the key elsewhere (a secrets manager, CLARION_SECRET_KEY), and a key given through CLARION_SECRET_KEY is never
 * copied into a file.
 */
const BACKUP_TABLE = 'clarion_backup';
const FORMAT = 1;

export interface BackupDescription {
  format: number;
  createdAt: string;
  /** The secret key (64 hex characters) when the backup carries it. */
  secretKey: string | null;
}

export class BackupError extends Error {
  override name = 'BackupError';
}

/** Copies the data directory's database into `file` (which must not exist yet), with the key when given. */
export async function writeSqliteBackup(input: {
  dataDir: string;
  file: string;
  secretKey: Buffer | null;
  now: Date;
}): Promise<{ pages: number }> {
  const source = join(input.dataDir, SQLITE_FILE_NAME);
  if (!existsSync(source)) throw new BackupError(`no database at ${source}: is CLARION_DATA_DIR right?`);
  if (existsSync(input.file)) throw new BackupError(`${input.file} exists already: back up to a new file`);
  // Written under a temporary name and renamed at the end: a backup that stops half-way leaves no file that looks
  // complete. Created owner-only before SQLite writes a page, since it may hold the key.
  const partial = `${input.file}.partial-${process.pid}`;
  closeSync(openSync(partial, 'wx', 0o600));
  try {
    // Read-write, as the server opens it: a read-only connection cannot create the -shm file WAL mode needs when no
    // server is running. The backup API only reads the source.
    const database = new SqliteDatabase(source, { fileMustExist: true });
    let pages: number;
    try {
      database.pragma('busy_timeout = 5000');
      pages = (await database.backup(partial)).totalPages;
    } finally {
      database.close();
    }
    const copy = new SqliteDatabase(partial);
    try {
      // The copy keeps the source's WAL mode; one self-contained file is what a backup should be.
      copy.pragma('journal_mode = DELETE');
      copy.exec(`create table ${BACKUP_TABLE} (format integer not null, created_at text not null, secret_key text)`);
      copy
        .prepare(`insert into ${BACKUP_TABLE} (format, created_at, secret_key) values (?, ?, ?)`)
        .run(FORMAT, input.now.toISOString(), input.secretKey?.toString('hex') ?? null);
    } finally {
      copy.close();
    }
    chmodSync(partial, 0o600);
    renameSync(partial, input.file);
    return { pages };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** Reads what a backup file says about itself; refuses a file that is not a Clarion backup. */
export function describeSqliteBackup(file: string): BackupDescription {
  if (!existsSync(file)) throw new BackupError(`no backup at ${file}`);
  let database: SqliteDatabase;
  try {
    database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${file} is not a Clarion backup: ${(error as Error).message}`);
  }
  try {
    const row = database
      .prepare(`select format, created_at as createdAt, secret_key as secretKey from ${BACKUP_TABLE}`)
      .get() as BackupDescription | undefined;
    if (!row) throw new BackupError(`${file} is not a Clarion backup: its ${BACKUP_TABLE} table is empty`);
    if (row.format !== FORMAT)
      throw new BackupError(`${file} is a backup of format ${row.format}; this Clarion reads format ${FORMAT}`);
    return row;
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} is not a Clarion backup (${(error as Error).message})`);
  } finally {
    database.close();
  }
}

/** Files of a data directory that a restore must not overwrite: it fills an empty one. */
export function existingInstanceFiles(dataDir: string): string[] {
  return [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, SECRET_KEY_FILE].filter((name) =>
    existsSync(join(dataDir, name)),
  );
}

/**
 * Puts the backup's database into `dataDir` (and its key into secret.key when `writeKey` is given). The
 * `clarion_backup` table, which may hold the key, is dropped from the restored copy with secure_delete on, so the key
 * is not left behind in its free pages. Returns a function that removes what was written (a restore whose key turns
 * out not to open the data is undone).
 */
export async function restoreSqliteBackup(input: {
  file: string;
  dataDir: string;
  writeKey: Buffer | null;
}): Promise<() => void> {
  mkdirSync(input.dataDir, { recursive: true });
  const target = join(input.dataDir, SQLITE_FILE_NAME);
  const partial = `${target}.restoring-${process.pid}`;
  closeSync(openSync(partial, 'wx', 0o600));
  try {
    const backup = new SqliteDatabase(input.file, { readonly: true, fileMustExist: true });
    try {
      await backup.backup(partial);
    } finally {
      backup.close();
    }
    const restored = new SqliteDatabase(partial);
    try {
      restored.pragma('secure_delete = ON');
      restored.exec(`drop table ${BACKUP_TABLE}`);
      restored.exec('vacuum');
      restored.pragma('journal_mode = WAL');
    } finally {
      restored.close();
    }
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  const keyFile = join(input.dataDir, SECRET_KEY_FILE);
  if (input.writeKey) writeFileSync(keyFile, `${input.writeKey.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return () => {
    for (const name of [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`])
      rmSync(join(input.dataDir, name), { force: true });
    if (input.writeKey) rmSync(keyFile, { force: true });
  };
}
