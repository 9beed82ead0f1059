import { sql } from 'kysely';
import type { JobRow } from './job-types.ts';
import type { QueueDriver } from './queue-driver.ts';

/**
 * SQLite: one writer at a time, so a single `UPDATE … WHERE id IN (SELECT … LIMIT n) RETURNING *` claims
 * exclusively without row locks. There is no cross-process notification: workers in other processes (rare with
 * SQLite) find work by polling; in-process wake-ups come from the queue itself.
 */
export const sqliteQueueDriver: QueueDriver = {
  async claim(db, { owner, kinds, limit, now, leaseMs }) {
    const result = await sql<JobRow>`
      UPDATE jobs
      SET state = 'running', attempt = attempt + 1, lease_owner = ${owner}, lease_expires_at = ${now + leaseMs}, updated_at = ${now}
      WHERE id IN (
        SELECT id FROM jobs
        WHERE state = 'available' AND run_at <= ${now} AND kind IN (${sql.join(kinds)})
        ORDER BY run_at, id
        LIMIT ${limit}
      )
      RETURNING *`.execute(db);
    return result.rows.sort(byRunAt);
  },
  async announce() {},
  async listen() {
    return async () => {};
  },
};

export function byRunAt(a: JobRow, b: JobRow): number {
  return a.run_at - b.run_at || (a.id < b.id ? -1 : 1);
}

