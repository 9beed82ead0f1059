import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { JobQueue } from './job-queue.ts';
import type { EnqueueInput, JobRow } from './job-types.ts';
import type { JobContext, JobHandler } from './worker-pool.ts';

/**
 * One job kind and the type of its payload, declared once (River's `JobArgs`, graphile-worker's task map): enqueueing
 * takes a `Payload`, the handler receives one, and the payload text is parsed in exactly one place. The queue itself
 * stays untyped (`kind` + JSON): a definition is only the typed door to it.
 */
export interface JobDefinition<Payload> {
  readonly kind: string;
  /** Enqueues in `db` (pass the caller's transaction: the outbox); the job's id, or the existing one for a known unique key. */
  enqueue(queue: JobQueue, db: Kysely<Database>, payload: Payload, options?: JobOptions): Promise<string>;
  /** As enqueue; true when this call made the job, false when its unique key was known (JobQueue.enqueueNew). */
  enqueueNew(queue: JobQueue, db: Kysely<Database>, payload: Payload, options?: JobOptions): Promise<boolean>;
  /** Enqueues in `db` already leased to `lease.owner`, for the caller to run after the commit (JobQueue.enqueueLeased). */
  enqueueLeased(
    queue: JobQueue,
    db: Kysely<Database>,
    payload: Payload,
    lease: { owner: string; leaseMs: number },
    options?: JobOptions,
  ): Promise<JobRow | null>;
  /** Replaces a running job's payload under its lease (progress, or what it must not redo); false when the lease was lost. */
  updatePayload(queue: JobQueue, db: Kysely<Database>, job: JobRow, owner: string, payload: Payload): Promise<boolean>;
  /** The worker pool's handler for this kind, calling `run` with the parsed payload. */
  handler(run: (payload: Payload, job: JobRow, context: JobContext) => ReturnType<JobHandler>): JobHandler;
  /** The payload of a job of this kind (tests and inspection). */
  payloadOf(job: Pick<JobRow, 'payload'>): Payload;
}

type JobOptions = Omit<EnqueueInput, 'kind' | 'payload' | 'lane'>;

/**
 * `lane`: what a job of this kind waits on outside the process, from its payload (a send job: its platform), so the
 * worker can let other lanes run beside jobs of one that stopped making progress (worker-pool.ts).
 */
export function defineJob<Payload>(
  kind: string,
  options: { lane?: (payload: Payload) => string } = {},
): JobDefinition<Payload> {
  // The one cast: the queue stores what enqueue() was given as JSON, and only enqueue() writes this kind.
  const payloadOf = (job: Pick<JobRow, 'payload'>) => JSON.parse(job.payload) as Payload;
  const laneOf = (payload: Payload) => (options.lane ? { lane: options.lane(payload) } : {});
  return {
    kind,
    enqueue: (queue, db, payload, jobOptions = {}) =>
      queue.enqueue(db, { ...jobOptions, ...laneOf(payload), kind, payload }),
    enqueueNew: (queue, db, payload, jobOptions = {}) =>
      queue.enqueueNew(db, { ...jobOptions, ...laneOf(payload), kind, payload }),
    enqueueLeased: (queue, db, payload, lease, jobOptions = {}) =>
      queue.enqueueLeased(db, { ...jobOptions, ...laneOf(payload), kind, payload }, lease),
    updatePayload: (queue, db, job, owner, payload) => queue.updatePayload(db, job, owner, payload),
    handler: (run) => (job, context) => run(payloadOf(job), job, context),
    payloadOf,
  };
}
