import { sql } from 'kysely';
import pg from 'pg';
import type { JobRow } from './job-types.ts';
import type { QueueDriver } from './queue-driver.ts';
import { byRunAt } from './sqlite-queue-driver.ts';

const CHANNEL = 'clarion_jobs';

/**
 * PostgreSQL: `FOR UPDATE SKIP LOCKED` lets any number of workers on any number of machines claim concurrently,
 * each getting different jobs without waiting on each other. Enqueueing sends NOTIFY inside the enqueueing
 * transaction (PostgreSQL delivers it on commit), and each worker LISTENs on a dedicated connection.
 */
export function postgresQueueDriver(databaseUrl: string): QueueDriver {
  return {
    async claim(db, { owner, kinds, limit, now, leaseMs }) {
      const result = await sql<JobRow>`
        UPDATE jobs
        SET state = 'running', attempt = attempt + 1, lease_owner = ${owner}, lease_expires_at = ${now + leaseMs}, updated_at = ${now}
        WHERE id IN (
          SELECT id FROM jobs
          WHERE state = 'available' AND run_at <= ${now} AND kind IN (${sql.join(kinds)})
          ORDER BY run_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING *`.execute(db);
      return result.rows.sort(byRunAt);
    },
    async announce(db) {
      await sql`SELECT pg_notify(${CHANNEL}, '')`.execute(db);
    },
    async listen(onWake) {
      const client = new pg.Client({ connectionString: databaseUrl });
      // A lost LISTEN connection only costs latency: polling still finds the work.
      client.on('error', () => {});
      await client.connect();
      client.on('notification', () => onWake());
      await client.query(`LISTEN ${CHANNEL}`);
      return async () => {
        await client.end().catch(() => {});
      };
    },
  };
}
