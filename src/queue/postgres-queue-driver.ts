import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { claimDueJobs } from './claim-due-jobs.ts';
import type { QueueDriver } from './queue-driver.ts';

/** The LISTEN/NOTIFY channel of the queue's wake-ups (also notified by store-accepted-notification.ts). */
export const JOBS_CHANNEL = 'clarion_jobs';
/** Built once: it runs with every enqueue, i.e. on every accepted notification. */
const ANNOUNCE = CompiledQuery.raw(`SELECT pg_notify('${JOBS_CHANNEL}', '')`);

/**
 * PostgreSQL: `FOR UPDATE SKIP LOCKED` lets any number of workers on any number of machines claim concurrently,
 * each getting different jobs without waiting on each other. Enqueueing sends NOTIFY inside the enqueueing
 * transaction (PostgreSQL delivers it on commit), and each worker LISTENs on a dedicated connection.
 */
export function postgresQueueDriver(databaseUrl: string): QueueDriver {
  return {
    claim: (db, input) => claimDueJobs(db, input, true),
    async announce(db) {
      await db.executeQuery(ANNOUNCE);
    },
    async listen(onWake) {
      const client = new pg.Client({ connectionString: databaseUrl });
      // A lost LISTEN connection only costs latency: polling still finds the work.
      client.on('error', () => {});
      await client.connect();
      client.on('notification', () => onWake());
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
      return async () => {
        await client.end().catch(() => {});
      };
    },
  };
}
