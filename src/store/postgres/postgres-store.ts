import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Store, StoreOptions } from '../database.ts';
import { withConflictRetry } from '../store-errors.ts';
import type { Database } from '../schema.ts';
import { acceptInOneStatement } from './accept-in-one-statement.ts';
import { createPostgresPool } from './postgres-pool.ts';
import { postgresQueueDriver } from './postgres-queue-driver.ts';
import { recordReceiptInOneStatement } from './record-receipt-in-one-statement.ts';

/** The storage port on PostgreSQL (src/store/database.ts): a pool of connections, writers side by side. */
export function openPostgresStore(
  url: string,
  size: number,
  onConnectionLost: StoreOptions['onConnectionLost'],
): Store {
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: createPostgresPool({ url, size, onConnectionLost }) }),
  });
  return {
    db,
    dialect: 'postgres',
    serialWriters: false,
    queueDriver: postgresQueueDriver(url),
    // A shared transaction would serialize what the pool runs side by side: each unit gets its own, or none for a
    // single write (READ COMMITTED takes a snapshot per statement, so its reads see committed data either way). A
    // unit PostgreSQL aborts for a deadlock or a serialization conflict is run again, as it asks
    // (https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html): rolled back, it left nothing.
    runShortTransaction: (work, options) =>
      withConflictRetry(() => (options?.oneWrite ? work(db) : db.transaction().execute(work))),
    acceptInOneStatement,
    recordReceiptInOneStatement,
    async lockTable(trx, table) {
      await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(trx);
    },
    // The server's own tuning serves a bulk import as well; PostgreSQL has no per-connection cache to grow here.
    async beginBulkWrites() {},
    async endBulkWrites() {},
    // No such setting: dead rows stay in the table files until VACUUM reuses their space (see Store.forgetDeleted).
    forgetDeleted: async () => true,
    close: () => db.destroy(),
  };
}
