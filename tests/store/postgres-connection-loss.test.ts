import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/database.ts';
import { PostgresConnectionError } from '../../src/store/postgres/postgres-pool.ts';
import { isStorageUnavailable } from '../../src/store/store-errors.ts';
import { createIsolatedDatabase } from '../harness/isolated-database.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { waitFor } from '../harness/wait-for.ts';

/**
 * A pooled PostgreSQL connection that breaks while it is checked out (src/store/postgres/postgres-pool.ts): the process lives
 * on, what ran on the connection fails as storage unavailable, the loss is reported, and the next query gets a new
 * connection. The connection is broken by ending its own server process (pg_terminate_backend on its own pid), which
 * leaves the server and every other connection alone; tests/chaos/postgres-restart.test.ts crashes a whole server.
 */
describe.runIf(testDialect === 'postgres')('a PostgreSQL connection lost while checked out', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let store: Store;
  let admin: pg.Client;
  const lost: Error[] = [];

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    store = openStore({
      databaseUrl: database.url,
      dataDir: '.',
      poolSize: 2,
      onConnectionLost: (error) => lost.push(error),
    });
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await database?.drop();
  });

  const terminate = async (pid: number) => void (await admin.query('SELECT pg_terminate_backend($1)', [pid]));

  it('between two queries of a transaction: the process survives and the transaction fails as unavailable', async () => {
    const before = lost.length;
    const failure = await store.db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        // The connection is checked out and idle here: only the client's own 'error' listener hears it break.
        await terminate(rows[0]!.pid);
        await waitFor(() => lost.length > before, 10_000, 'the lost connection to be reported');
        await sql`SELECT 1`.execute(trx);
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(PostgresConnectionError);
    expect(failure).toMatchObject({ code: '08006' });
    expect(isStorageUnavailable(failure)).toBe(true);
    expect(lost.length).toBe(before + 1);
    // A new connection for the next query.
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(store.db)).rows).toEqual([{ one: 1 }]);
  });

  it('during a query of a transaction: the query fails as unavailable, and so does the ROLLBACK after it', async () => {
    const before = lost.length;
    const failure = await store.db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        const sleeping = sql`SELECT pg_sleep(30)`.execute(trx);
        // The query fails as soon as its connection is cut, which may be before `await sleeping` below: handled now,
        // so that moment's rejection is not reported as unhandled (the await still throws it into the transaction).
        sleeping.catch(() => {});
        await waitFor(
          async () =>
            (
              await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep'", [
                rows[0]!.pid,
              ])
            ).rowCount === 1,
          10_000,
          'the query to run',
        );
        await terminate(rows[0]!.pid);
        await sleeping;
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(isStorageUnavailable(failure)).toBe(true);
    await waitFor(() => lost.length > before, 10_000, 'the lost connection to be reported');
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(store.db)).rows).toEqual([{ one: 1 }]);
  });

  it('a server that cannot be reached is unavailable too, whatever the way it fails', async () => {
    // Nothing listens on port 1; no socket file in a directory that does not exist (ECONNREFUSED, ENOENT).
    for (const url of [
      'postgres://clarion@127.0.0.1:1/clarion',
      'postgres://clarion@/clarion?host=/nonexistent-clarion-socket-dir',
    ]) {
      const down = openStore({ databaseUrl: url, dataDir: '.', poolSize: 1 });
      const failure = await sql`SELECT 1`.execute(down.db).then(
        () => null,
        (error: unknown) => error,
      );
      await down.close();
      expect(failure, url).toMatchObject({ code: '08001' });
      expect(isStorageUnavailable(failure), url).toBe(true);
    }
  });
});
