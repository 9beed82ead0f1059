import type { PostgresPool } from 'kysely';
import type pg from 'pg';
import { serverStatementName } from '../prepared-query.ts';
import { pgModule } from './pg-module.ts';

/**
 * A failure to reach PostgreSQL that node-postgres reports without a SQLSTATE ("Connection terminated unexpectedly",
 * "Client has encountered a connection error and is not queryable", a refused or missing socket), given the code
 * PostgreSQL's own drivers use for it: 08001 sqlclient_unable_to_establish_sqlconnection when a connection cannot be
 * opened, 08006 connection_failure when an open one is lost
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html). Class 08 is what `isStorageUnavailable`
 * (store-errors.ts) recognizes, so the API answers 503 `unavailable` and the worker waits for the database, instead of
 * a 500 that reads as a bug.
 */
export class PostgresConnectionError extends Error {
  override readonly name = 'PostgresConnectionError';
  constructor(
    readonly code: '08001' | '08006',
    cause: Error,
  ) {
    // pino's error serializer adds the cause's message: "lost the connection to PostgreSQL: Connection terminated unexpectedly".
    super(code === '08001' ? 'could not connect to PostgreSQL' : 'lost the connection to PostgreSQL', { cause });
  }
}

/** What the server logs (as a warning) for each connection lost. */
export const CONNECTION_LOST_MESSAGE =
  'lost a PostgreSQL connection (the server crashed, restarted, failed over or closed it); until a new one opens, requests answer 503 unavailable and the worker waits';

export interface PostgresPoolOptions {
  url: string;
  size: number;
  /** Told of each connection lost (the server crashed, restarted, failed over, or dropped it); the server logs it. */
  onConnectionLost?: ((error: Error) => void) | undefined;
}

/**
 * node-postgres's pool for Kysely, made to survive the database going away. pg emits 'error' on a client whose
 * connection breaks, whether or not a query is running on it, and an 'error' event without a listener ends the
 * process. The pool listens only to its idle clients; a client checked out at that moment — a transaction waiting
 * on a lock, a ROLLBACK sent after the server's FATAL message — has no listener, so a crash of PostgreSQL under load
 * stopped every Clarion process. Here every client has a listener of its own from its first connection, checked out
 * or idle, and what it was running fails with a PostgresConnectionError; the pool drops the broken client when it is
 * released and opens a new connection for the next query.
 */
export function createPostgresPool(options: PostgresPoolOptions): PostgresPool {
  const pool = new (pgModule().Pool)({ connectionString: options.url, max: options.size });
  const lost = new WeakSet<pg.ClientBase>();
  // Emitted by the pool for an idle client that broke, after the client's own listener below has seen it.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      // pg can emit more than once for one failure (the server's FATAL message, then the socket's end).
      if (lost.has(client)) return;
      lost.add(client);
      options.onConnectionLost?.(error);
    });
    sendHotStatementsNamed(client, (error) =>
      lost.has(client) && isDriverError(error) ? new PostgresConnectionError('08006', error) : error,
    );
  });
  return {
    connect: () =>
      pool
        .connect()
        .catch((error: unknown) =>
          Promise.reject(isDriverError(error) ? new PostgresConnectionError('08001', error) : error),
        ),
    end: () => pool.end(),
  };
}

/** An error of node-postgres or the socket, not the server's answer (a DatabaseError, which carries its own SQLSTATE). */
function isDriverError(error: unknown): error is Error {
  return error instanceof Error && !(error instanceof pgModule().DatabaseError);
}

/**
 * The hot statements (src/store/prepared-query.ts) go to PostgreSQL as named statements, which each connection parses
 * and plans once: Kysely's driver calls `client.query(text, values)`, which node-postgres sends as an unnamed
 * statement, parsed and planned anew on every run. A connection that is replaced (lost, or ended by the pool) starts
 * with nothing prepared, and node-postgres prepares each name again on its first use there. Every query's failure
 * passes through `mapError`.
 */
function sendHotStatementsNamed(client: pg.PoolClient, mapError: (error: unknown) => unknown): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: (...args: unknown[]) => unknown }).query = (text: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' && Array.isArray(rest[0]) ? serverStatementName(text) : undefined;
    const result = name === undefined ? query(text, ...rest) : query({ name, text, values: rest[0] }, ...rest.slice(1));
    return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(mapError(error))) : result;
  };
}
