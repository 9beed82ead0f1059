import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { redactUrl } from '../config/load-config.ts';
import type { AcceptInOneStatement } from './postgres/accept-in-one-statement.ts';
import { CONNECTION_LOST_MESSAGE } from './postgres/postgres-pool.ts';
import { openPostgresStore } from './postgres/postgres-store.ts';
import type { RecordReceiptInOneStatement } from './postgres/record-receipt-in-one-statement.ts';
import type { QueueDriver } from './queue-driver.ts';
import type { Database } from './schema.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';

export type Dialect = 'sqlite' | 'postgres';

/**
 * The storage port: one Kysely instance over whichever database the operator chose, and every operation whose SQL or
 * behaviour differs between the two. Everything outside src/store/ works through this interface and never asks which
 * database it runs on; src/store/sqlite/ and src/store/postgres/ each implement it with their own tricks, and the
 * conformance suite (tests/store/storage-port.test.ts) holds both to the same contract.
 */
export interface Store {
  db: Kysely<Database>;
  /** Which implementation this is: for src/store/ itself (migrations) and for logs (describeStore); nowhere else. */
  dialect: Dialect;
  /**
   * True on SQLite: a write transaction holds the database's only write lock from its BEGIN (IMMEDIATE) to its end, so
   * a read inside it sees every row that can be committed before it ends, and takes rows no other writer can take.
   * False on PostgreSQL: writers run side by side, claims lock the rows they take (FOR UPDATE SKIP LOCKED), and a row
   * stamped before a transaction's time may still be committed after its reads.
   */
  serialWriters: boolean;
  /** The job queue's per-database part: claiming due jobs, announcing and hearing of new ones (queue-driver.ts). */
  queueDriver: QueueDriver;
  /**
   * Runs a short unit of work in a transaction of its own or, on SQLite, shared with the units of the same moment
   * (group commit, sqlite/group-commit.ts); the unit must use only the `trx` it is given. `oneWrite`: the unit writes
   * with a single statement and its reads need no snapshot shared with that write, so on PostgreSQL, where a
   * statement outside a transaction commits by itself, it runs without BEGIN and COMMIT. On PostgreSQL a unit aborted
   * for a deadlock or a serialization conflict runs again (up to 3 times in all), so it must have no effect outside
   * the database.
   */
  runShortTransaction<T>(work: (trx: Kysely<Database>) => Promise<T>, options?: { oneWrite?: boolean }): Promise<T>;
  /**
   * The accept path's writes as one statement (src/store/postgres/accept-in-one-statement.ts), where each statement is
   * a round trip; null on SQLite, where a statement is a function call and the group commit already shares BEGIN and
   * COMMIT (src/queue/store-accepted-notification.ts).
   */
  acceptInOneStatement: AcceptInOneStatement | null;
  /**
   * One receipt's writes as one statement (src/store/postgres/record-receipt-in-one-statement.ts), where each
   * statement is a round trip; null on SQLite, where the group commit shares BEGIN and COMMIT
   * (src/store/receipts-queries.ts).
   */
  recordReceiptInOneStatement: RecordReceiptInOneStatement | null;
  /**
   * Inside a write transaction: no other transaction inserts into `table` until this one ends, so a check for "none
   * yet" stays true until the insert that follows it commits. Nothing to do on SQLite (`serialWriters`).
   */
  lockTable(trx: Kysely<Database>, table: 'accounts'): Promise<void>;
  /** Before a long bulk write on this connection (the subscriber import): tune for it. */
  beginBulkWrites(): Promise<void>;
  /** After it: leave the server nothing large to tidy up. */
  endBulkWrites(): Promise<void>;
  /**
   * After an erasure has committed (src/store/user-erasure-queries.ts): makes the deleted rows unreadable in the
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
   * This process answers requests (`clarion serve` with the API role): on SQLite the WAL is checkpointed from a thread
   * of its own, so that commits on this connection find almost nothing left to copy
   * (src/store/sqlite/sqlite-checkpointer.ts); the CLI's short runs and a worker-only process keep SQLite's default.
   */
  serving?: boolean | undefined;
  /** SQLite: the checkpoint thread's interval in place of the serving default (tests). */
  checkpointIntervalMs?: number | undefined;
  /** Where the store warns of what it works around: a lost PostgreSQL connection, a failing checkpoint thread. */
  logger?: Pick<Logger, 'warn'> | undefined;
  /** SQLite: told of a failing checkpoint thread (at most once a minute), in place of the logger's warning. */
  onCheckpointError?: ((message: string) => void) | undefined;
  /** SQLite: the write turns shared with the other threads of this process (sqlite/sqlite-write-turns.ts). */
  sqliteWriteTurns?: SharedArrayBuffer | undefined;
  /** PostgreSQL: told of each pooled connection lost (postgres/postgres-pool.ts), in place of the logger's warning. */
  onConnectionLost?: ((error: Error) => void) | undefined;
}

/** The SQLite file's name in the data directory. */
export { SQLITE_FILE_NAME } from './sqlite/sqlite-store.ts';

export function openStore(options: StoreOptions): Store {
  return options.databaseUrl
    ? openPostgresStore(
        options.databaseUrl,
        options.poolSize ?? 10,
        options.onConnectionLost ?? warnOfLostConnection(options.logger),
      )
    : openSqliteStore(options);
}

function warnOfLostConnection(logger: StoreOptions['logger']): ((error: Error) => void) | undefined {
  return logger && ((error) => logger.warn({ err: error }, CONNECTION_LOST_MESSAGE));
}

/** What the server and `clarion migrate` say of the store: which database, and where (a URL without its password). */
export function describeStore(
  store: Store,
  location: { databaseUrl?: string | undefined; dataDir: string },
): {
  dialect: Dialect;
  database: string;
} {
  return {
    dialect: store.dialect,
    database: location.databaseUrl ? redactUrl(location.databaseUrl) : location.dataDir,
  };
}
