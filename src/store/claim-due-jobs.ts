import { sql, type Kysely } from 'kysely';
import { preparedQuery } from './prepared-query.ts';
import type { Database } from './schema.ts';
import type { JobRow } from './queue-driver.ts';

export interface ClaimInput {
  owner: string;
  kinds: string[];
  limit: number;
  now: number;
  leaseMs: number;
  /** Lanes whose jobs are not claimed now (worker-pool.ts): a job of no lane always may be. */
  skipLanes: readonly string[];
}

/**
 * The one claim statement both drivers run: moves up to `limit` due jobs to running under `owner` and counts the
 * attempt. PostgreSQL adds `FOR UPDATE SKIP LOCKED` to the inner SELECT so concurrent workers take different jobs
 * without waiting; SQLite has one writer at a time, so the statement alone is exclusive. One statement is atomic on
 * both, so it needs no transaction around it (JobQueue.claim).
 */
export async function claimDueJobs(db: Kysely<Database>, input: ClaimInput, skipLocked: boolean): Promise<JobRow[]> {
  const { owner, kinds, limit, now, leaseMs, skipLanes } = input;
  const rows = await claimStatement(db, {
    owner,
    kinds,
    limit,
    now,
    leaseExpiresAt: now + leaseMs,
    skipLocked,
    skipLanes,
  });
  // RETURNING gives no order guarantee; hand jobs out oldest first.
  return rows.sort((a, b) => a.run_at - b.run_at || (a.id < b.id ? -1 : 1));
}

/**
 * Compiled once per worker's set of kinds (src/store/prepared-query.ts), and a named statement on PostgreSQL: it runs
 * at least once per job that is not started leased (a small notification's dispatch; docs/performance.md, "Latency to first push").
 * The kinds are the statement's constants: a worker's kinds never change, and each set is a shape of its own. So are
 * the skipped lanes: none nearly always, else one of a few platforms at a time.
 */
const claimStatement = preparedQuery(
  (
    db,
    param,
    values: {
      owner: string;
      kinds: string[];
      limit: number;
      now: number;
      leaseExpiresAt: number;
      skipLocked: boolean;
      skipLanes: readonly string[];
    },
  ) => {
    const statement = sql<JobRow>`
    UPDATE jobs
    SET state = 'running', attempt = attempt + 1, lease_owner = ${param('owner')}, lease_expires_at = ${param('leaseExpiresAt')}, updated_at = ${param('now')}
    WHERE id IN (
      SELECT id FROM jobs
      WHERE state = 'available' AND run_at <= ${param('now')} AND kind IN (${sql.join(values.kinds)})
      ${values.skipLanes.length > 0 ? sql`AND (lane IS NULL OR lane NOT IN (${sql.join([...values.skipLanes])}))` : sql``}
      ORDER BY run_at, id
      LIMIT ${param('limit')}
      ${values.skipLocked ? sql`FOR UPDATE SKIP LOCKED` : sql``}
    )
    RETURNING *`;
    return { compile: () => statement.compile(db) };
  },
  (values) => `${values.skipLocked}:${values.kinds.join('\u0000')}:${values.skipLanes.join('\u0000')}`,
);
