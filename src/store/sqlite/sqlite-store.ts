import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import type { Store, StoreOptions } from '../database.ts';
import type { Database } from '../schema.ts';
import { GroupCommit } from './group-commit.ts';
import {
  CHECKPOINT_INTERVAL_MS,
  SERVING_AUTOCHECKPOINT_PAGES,
  startSqliteCheckpointer,
} from './sqlite-checkpointer.ts';
import { SqliteDatabase, type SqliteStatement } from './sqlite-driver.ts';
import { sqliteQueueDriver } from './sqlite-queue-driver.ts';
import { SqliteWriteTurns } from './sqlite-write-turns.ts';

export const SQLITE_FILE_NAME = 'clarion.db';

/** The storage port on SQLite (src/store/database.ts): one connection per process, in WAL mode. */
export function openSqliteStore(options: StoreOptions): Store {
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
  const checkpointIntervalMs = options.checkpointIntervalMs ?? (options.serving ? CHECKPOINT_INTERVAL_MS : null);
  const { logger } = options;
  const onCheckpointError =
    options.onCheckpointError ??
    (logger &&
      ((error: string) =>
        logger.warn({ error }, 'SQLite checkpoint thread failed; the serving connection checkpoints alone')));
  const checkpointer =
    checkpointIntervalMs && file !== ':memory:'
      ? startSqliteCheckpointer(file, checkpointIntervalMs, onCheckpointError)
      : null;
  if (checkpointer) database.pragma(`wal_autocheckpoint = ${SERVING_AUTOCHECKPOINT_PAGES}`);
  const turns = options.sqliteWriteTurns ? new SqliteWriteTurns(options.sqliteWriteTurns) : null;
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }, turns),
  });
  const units = new GroupCommit(db);
  return {
    db,
    dialect: 'sqlite',
    serialWriters: true,
    queueDriver: sqliteQueueDriver,
    runShortTransaction: (work) => units.run(work),
    acceptInOneStatement: null,
    recordReceiptInOneStatement: null,
    async lockTable() {},
    async beginBulkWrites() {
      // A bulk import writes rows in random order into its indexes: with SQLite's default 2 MB page cache every row of
      // a large channel missed it, so this connection (the CLI's own process) gets 128 MB. Checkpointing the WAL every
      // 20,000 pages instead of 1,000 writes a page touched by several transactions back once: half the commit time
      // of a 200,000-row import (bench/import-subscribers.ts).
      database.pragma('cache_size = -131072');
      database.pragma('wal_autocheckpoint = 20000');
    },
    async endBulkWrites() {
      // Hand the server a short WAL rather than leave it a large checkpoint at its next commit.
      database.pragma('wal_checkpoint(PASSIVE)');
    },
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
