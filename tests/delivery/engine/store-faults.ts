import {
  ColumnNode,
  TableNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import type { Store } from '../../../src/store/database.ts';
import { PostgresConnectionError } from '../../../src/store/postgres/postgres-pool.ts';

/**
 * A store whose writes of one kind fail the way a full disk makes them fail, for the delivery worker only (the API and
 * the queue keep the real store). The failure is injected where the driver would raise it, as an error with the
 * driver's code: SQLITE_FULL from better-sqlite3, SQLSTATE 53100 disk_full from PostgreSQL.
 */
export interface FaultyStore {
  store: Store;
  /** Makes the next `count` statements that `matches` (default: the settling UPDATE) fail with `error` (default: disk full). */
  failNext(count: number, matches?: (node: RootOperationNode) => boolean, error?: () => Error): void;
  /** Matching statements that failed so far. */
  readonly failures: number;
}

/** Matches the settling of a send batch: the UPDATE of a notification's delivered/failed counters (deliveries-queries.ts). */
function isSettlingStatement(node: RootOperationNode): boolean {
  if (node.kind !== 'UpdateQueryNode') return false;
  const table = node.table && TableNode.is(node.table) ? node.table.table.identifier.name : null;
  return (
    table === 'notifications' &&
    (node.updates ?? []).some(
      (update) => ColumnNode.is(update.column) && update.column.column.name === 'delivered_count',
    )
  );
}

/** The error a read-only database gives a write: a hot standby after a failover, or a read-only file. */
export function readOnlyError(dialect: Store['dialect']): Error {
  return dialect === 'postgres'
    ? Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' })
    : Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });
}

export function diskFullError(dialect: Store['dialect']): Error {
  return dialect === 'postgres'
    ? Object.assign(new Error('could not extend file "base/16384/16385": No space left on device'), { code: '53100' })
    : Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
}

/**
 * The error of a database that went away: on PostgreSQL the pool's lost connection (src/store/postgres/postgres-pool.ts), on
 * SQLite a lock that busy_timeout gave up on.
 */
export function unavailableError(dialect: Store['dialect']): Error {
  return dialect === 'postgres'
    ? new PostgresConnectionError('08006', new Error('Connection terminated unexpectedly'))
    : Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
}

/**
 * Matches the statement that stores a notification: its INSERT, or on PostgreSQL the accept statement whose CTE holds
 * it (src/store/postgres/accept-in-one-statement.ts).
 */
export function isNotificationStore(node: RootOperationNode): boolean {
  if (node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'notifications') return true;
  const ctes = 'with' in node && node.with ? node.with.expressions : [];
  return ctes.some((cte) => isNotificationStore(cte.expression as RootOperationNode));
}

/** Matches an INSERT into jobs: an enqueue, such as a send job's next round written in its settling transaction. */
export function isJobInsert(node: RootOperationNode): boolean {
  return node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'jobs';
}

/** Matches a SELECT from subscribers. */
export function isSubscriberRead(node: RootOperationNode): boolean {
  return (
    node.kind === 'SelectQueryNode' &&
    (node.from?.froms ?? []).some((from) => TableNode.is(from) && from.table.identifier.name === 'subscribers')
  );
}

export function faultyStore(store: Store): FaultyStore {
  let remaining = 0;
  let matches: (node: RootOperationNode) => boolean = isSettlingStatement;
  let makeError = () => diskFullError(store.dialect);
  let failures = 0;
  const plugin: KyselyPlugin = {
    transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
      if (remaining > 0 && matches(node)) {
        remaining -= 1;
        failures += 1;
        throw makeError();
      }
      return node;
    },
    async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return result;
    },
  };
  return {
    store: {
      ...store,
      db: store.db.withPlugin(plugin),
      // The port's short transactions open their own on the real connection: the faults reach them through `trx`.
      runShortTransaction: (work, options) => store.runShortTransaction((trx) => work(trx.withPlugin(plugin)), options),
    },
    failNext(count, which = isSettlingStatement, error = () => diskFullError(store.dialect)) {
      remaining = count;
      matches = which;
      makeError = error;
    },
    get failures() {
      return failures;
    },
  };
}
