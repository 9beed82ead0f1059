import type { Kysely, Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { Database, JobsTable } from './schema.ts';
import type { ClaimInput } from './claim-due-jobs.ts';

/** A job as stored (src/queue/job-queue.ts works with these). */
export type JobRow = Selectable<JobsTable>;

/**
 * The parts of the queue that differ per database (River's driver split), each database's in its own folder
 * (src/store/sqlite/, src/store/postgres/). Everything else is shared: the claim statement in claim-due-jobs.ts, the
 * other queue operations in src/queue/job-queue.ts.
 */
export interface QueueDriver {
  /** Atomically moves up to `limit` due jobs of these kinds to running under `owner`, counting the attempt. */
  claim(db: Kysely<Database>, input: ClaimInput): Promise<JobRow[]>;
  /** Called inside the enqueueing transaction: tells other processes that work is waiting (delivered on commit). */
  announce(db: Kysely<Database>): Promise<void>;
  /**
   * Calls `onWake` when another process announces work, and keeps doing so across lost connections (said on `logger`);
   * returns a function that stops listening.
   */
  listen(onWake: () => void, logger: Logger): Promise<() => Promise<void>>;
}
