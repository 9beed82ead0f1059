import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { JobRow } from './job-types.ts';

export interface ClaimInput {
  owner: string;
  kinds: string[];
  limit: number;
  now: number;
  leaseMs: number;
}

/**
 * The one claim statement both drivers run: moves up to `limit` due jobs to running under `owner` and counts the
 * attempt. PostgreSQL adds `FOR UPDATE SKIP LOCKED` to the inner SELECT so concurrent workers take different jobs
 * without waiting; SQLite has one writer at a time, so the statement alone is exclusive.
 */
export async function claimDueJobs(db: Kysely<Database>, input: ClaimInput, skipLocked: boolean): Promise<JobRow[]> {
  const { owner, kinds, limit, now, leaseMs } = input;
  const result = await sql<JobRow>`
    UPDATE jobs
    SET state = 'running', attempt = attempt + 1, lease_owner = ${owner}, lease_expires_at = ${now + leaseMs}, updated_at = ${now}
    WHERE id IN (
      SELECT id FROM jobs
      WHERE state = 'available' AND run_at <= ${now} AND kind IN (${sql.join(kinds)})
      ORDER BY run_at, id
      LIMIT ${limit}
      ${skipLocked ? sql`FOR UPDATE SKIP LOCKED` : sql``}
    )
    RETURNING *`.execute(db);
  // RETURNING gives no order guarantee; hand jobs out oldest first.
  return result.rows.sort((a, b) => a.run_at - b.run_at || (a.id < b.id ? -1 : 1));
}
