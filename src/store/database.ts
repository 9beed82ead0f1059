import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import { createPostgresPool } from './postgres-pool.ts';
import type { Database } from './schema.ts';
import { SERVING_AUTOCHECKPOINT_PAGES, startSqliteCheckpointer } from './sqlite-checkpointer.ts';
import { SqliteDatabase, type SqliteStatement } from './sqlite-driver.ts';
import { SqliteWriteTurns } from './sqlite-write-turns.ts';

export type Dialect = 'sqlite' | 'postgres';

/** The query layer: one Kysely instance over whichever database the operator chose. */
export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * After an erasure has committed (src/store/user-erasure-store.ts): makes the deleted rows unreadable in the
   * database's own files where the engine can. SQLite: every connection runs with secure_delete, so the pages the
   * erasure wrote hold zeros where the rows were; the WAL still holds the earlier versions of those pages until it is
   * copied into the database file and truncated, which this does (wal_checkpoint(TRUNCATE)). False when that could not
   * complete now (another connection was reading the WAL): the frames are then overwritten by later writes and dropped
   * at the next truncation. PostgreSQL has no such setting: dead rows stay in the table files until VACUUM reuses
   * their space, and in WAL segments until they are recycled (docs/api.md, "Users"); true at once.
   */
  forgetDeleted(): Promise<boolean>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** postgres://… selects PostgreSQL; otherwise SQLite at `sqliteFile`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** Defaults to <dataDir>/clarion.db. */
  sqliteFile?: string;
  /** PostgreSQL pool size; 10 suits one API process on 2 cores. */
  poolSize?: number;
  /**
   * SQLite: checkpoint the WAL every this many milliseconds from a thread of its own, so that commits on this
   * connection find almost nothing left to copy (src/store/sqlite-checkpointer.ts). For `clarion serve`, whose event
   * loop answers requests; the CLI's short runs keep SQLite's default.
   */
  checkpointIntervalMs?: number | undefined;
  /** Told of a failing checkpoint thread (at most once a minute); the server logs it as a warning. */
  onCheckpointError?: ((message: string) => void) | undefined;
  /** SQLite: the write turns shared with the other threads of this process that open the same file (src/store/sqlite-write-turns.ts). */
  sqliteWriteTurns?: SharedArrayBuffer | undefined;
  /** PostgreSQL: told of each pooled connection lost (src/store/postgres-pool.ts); the server logs it as a warning. */
  onConnectionLost?: ((error: Error) => void) | undefined;
}

export const SQLITE_FILE_NAME = 'clarion.db';

export function openStore(options: StoreOptions): Store {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.onConnectionLost)
    : openSqlite(options);
}

function openPostgres(url: string, size: number, onConnectionLost: StoreOptions['onConnectionLost']): Store {
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: createPostgresPool({ url, size, onConnectionLost }) }),
  });
  return { db, dialect: 'postgres', forgetDeleted: async () => true, close: () => db.destroy() };
}

function openSqlite(options: StoreOptions): Store {
  const file = options.sqliteFile ?? join(options.dataDir, SQLITE_FILE_NAME);
  if (file !== ':memory:') {
    mkdirSync(options.dataDir, { recursive: true });
    // The file holds sealed webhook secrets, key hashes and sessions: create it owner-only (0600) before SQLite
    // would create it 0644 under the usual umask. SQLite gives the -wal and -shm files it creates later the main
    // file's permissions (findCreateFileMode in sqlite3.c), so they are 0600 too. An existing file keeps the mode
    // the operator gave it.
    closeSync(openSync(file, 'a', 0o600));
  }
  const database = new SqliteDatabase(file);
  // WAL lets the CLI and readers work while the server writes; synchronous=NORMAL is durable across process
  // crashes in WAL mode (only an OS crash can lose the last commits). busy_timeout makes a second process
  // (the CLI beside a running server) wait for the write lock instead of failing at once.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // Deleted content is overwritten with zeros instead of left in free space and free pages, where it stays readable in
  // the file (https://www.sqlite.org/pragma.html#pragma_secure_delete): an erased person's tokens and id must not
  // outlive DELETE /users/{externalId}. Per connection, so every process and thread that opens the file sets it.
  // Measured on the accept path: docs/performance.md, "Accept path".
  database.pragma('secure_delete = ON');
  const checkpointer =
    options.checkpointIntervalMs && file !== ':memory:'
      ? startSqliteCheckpointer(file, options.checkpointIntervalMs, options.onCheckpointError)
      : null;
  if (checkpointer) database.pragma(`wal_autocheckpoint = ${SERVING_AUTOCHECKPOINT_PAGES}`);
  const turns = options.sqliteWriteTurns ? new SqliteWriteTurns(options.sqliteWriteTurns) : null;
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }, turns),
  });
  return {
    db,
    dialect: 'sqlite',
    async forgetDeleted() {
      if (file === ':memory:') return true;
      // [busy, WAL frames, frames checkpointed]: busy = 1 when a reader kept the checkpoint from completing.
      const [result] = database.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      return result?.busy === 0;
    },
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** Prepared statements kept per connection; Clarion's queries have a few hundred distinct texts at most. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every statement anew, each time it runs: parsing and planning SQL against a schema
 * of 20 tables. Measured on the accept path (2026-11-23, 11 statements per POST /notifications, 2,000 requests
 * through inject() in one process): 2.6 ms per request before, 0.85 ms with this cache (docs/performance.md, "Accept
 * path"). better-sqlite3 statements can be run again with new parameters, so the
 * connection keeps the most recently used ones by their SQL text (least recently used dropped past the limit; texts
 * with a variable number of `?`, like `IN (…)` lists, are simply several entries). Safe because Kysely runs one
 * query at a time on its single SQLite connection, streams included.
 */
function withStatementCache(database: SqliteDatabase): SqliteDialectConfig['database'] {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(source: string) {
      let statement = statements.get(source);
      if (statement) {
        statements.delete(source);
      } else {
        statement = database.prepare(source);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(source, statement);
      return statement;
    },
  };
}

/**
 * SQLite transactions start with BEGIN IMMEDIATE: they take the write lock up front (waiting busy_timeout for it)
 * instead of failing with SQLITE_BUSY when a read inside the transaction is followed by a write while another
 * process (the CLI, a second worker) has written in between.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqliteConfig: SqliteDialectConfig,
    private readonly turns: SqliteWriteTurns | null,
  ) {
    super(sqliteConfig);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.sqliteConfig, this.turns);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  /** Whether this connection's transaction holds a turn (Kysely runs one transaction at a time per connection). */
  private holdsTurn = false;

  constructor(
    config: SqliteDialectConfig,
    private readonly turns: SqliteWriteTurns | null,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.turns) {
      this.turns.take();
      this.holdsTurn = true;
    }
    try {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    } catch (error) {
      this.giveTurn();
      throw error;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } finally {
      this.giveTurn();
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      this.giveTurn();
    }
  }

  private giveTurn(): void {
    if (!this.holdsTurn) return;
    this.holdsTurn = false;
    this.turns!.give();
  }
}
