import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { JOBS_CHANNEL, postgresQueueDriver } from '../../src/store/postgres/postgres-queue-driver.ts';
import { openStore } from '../../src/store/database.ts';
import { capturingLogger } from '../harness/captured-logs.ts';
import { createIsolatedDatabase } from '../harness/isolated-database.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { waitFor } from '../harness/wait-for.ts';

/**
 * The worker's LISTEN connection (src/store/postgres/postgres-queue-driver.ts) outlives a lost connection: a worker in another
 * process than the API is woken by NOTIFY again after PostgreSQL restarts or fails over, not only by its poll. The
 * connection is broken by ending its server process (pg_terminate_backend), in a database of this test's own, so no
 * other file's connection is touched.
 */
describe.runIf(testDialect === 'postgres')("the worker's LISTEN connection", () => {
  it('is opened again when it is lost, wakes the worker once for what it missed, and then passes on NOTIFY again', async () => {
    const database = await createIsolatedDatabase();
    const store = openStore({ databaseUrl: database.url, dataDir: '.', poolSize: 1 });
    const admin = new pg.Client({ connectionString: database.url });
    const driver = postgresQueueDriver(database.url);
    const { logger, logs } = capturingLogger();
    let wakes = 0;
    const unlisten = await driver.listen(() => (wakes += 1), logger);
    try {
      await admin.connect();
      const listener = async () =>
        (
          await admin.query<{ pid: number }>(
            'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1',
            [`LISTEN ${JOBS_CHANNEL}`],
          )
        ).rows[0]?.pid;
      const pid = await listener();
      expect(pid).toBeTypeOf('number');
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);

      await waitFor(
        () => logs.some((line) => line.msg === 'the LISTEN connection is open again'),
        10_000,
        'the LISTEN connection to be opened again',
      );
      expect(logs.find((line) => String(line.msg).startsWith('the LISTEN connection was lost'))).toMatchObject({
        level: 40,
      });
      expect(wakes).toBe(1);
      expect(await listener()).not.toBe(pid);

      await driver.announce(store.db);
      await waitFor(() => wakes === 2, 10_000, 'the NOTIFY to wake the worker');
    } finally {
      await unlisten();
      await admin.end();
      await store.close();
      await database.drop();
    }
  });
});
