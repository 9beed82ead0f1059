import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { JobDefinition } from '../queue/job-definition.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import { JobRetryError, type JobRow } from '../queue/job-types.ts';
import type { Store } from '../store/database.ts';
import type { Database } from '../store/schema.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';

/**
 * Settling a batch whose pushes are already out, without ever sending them again because the settling failed.
 *
 * A send job sends first and then commits what the answers imply in one transaction that also completes the job. If
 * that transaction fails (disk full, a read-only or failed-over database, a deadlock), failing the job would make its
 * next attempt send the whole batch again: 1,500 duplicate pushes in a full-disk test, without any crash.
 * So, in order:
 * 1. the transaction is retried in memory with backoff (SETTLE_RETRY_DELAYS_MS), which rides out lock waits, a
 *    failover and a checkpoint freeing WAL space;
 * 2. then the answers are kept: in this process's SettleBacklog, and durably in the job's own payload (`sent`), by a
 *    one-row UPDATE under the job's lease, much smaller than the settling transaction and so often possible when it is
 *    not; the job then fails its attempt and the queue retries it with its usual backoff;
 * 3. the next attempt of the job, on any worker, finds the answers (payload first, then this process's backlog) and
 *    settles them without sending.
 * Crash-correct: the answers are written with the job's row and guarded by its lease, and settling them commits with
 * the job's completion, so they are applied exactly once. Only a crash (or an eviction from a full backlog) before the
 * answers are kept repeats the batch: the in-flight repeat docs/delivery.md allows.
 */
export interface RecordedOutcomes {
  /** When the batch was sent (epoch ms). */
  sentAt: number;
  /** Subscriber id → the provider's answer. */
  outcomes: Record<string, DeliveryOutcome>;
  /** Subscriber id → the token the push went to, where settling needs it (a Live Activity drops that token only). */
  tokens?: Record<string, string>;
}

/** Pauses between in-memory attempts of a failed settling transaction: about 5 s in all, well inside a job's lease. */
export const SETTLE_RETRY_DELAYS_MS: readonly number[] = [250, 1_000, 4_000];

/** Thrown by a settling transaction whose `queue.complete` found the lease lost: another worker owns the batch now. */
export class LeaseLostError extends Error {
  constructor() {
    super('lease lost: another worker runs this batch now');
    this.name = 'LeaseLostError';
  }
}

/**
 * Answers of sent batches whose settling failed, by job id, for this process's next attempt of the job when the durable
 * copy could not be written either. Bounded: the oldest are forgotten past MAX_KEPT (their batches would be sent again).
 */
export class SettleBacklog {
  static readonly MAX_KEPT = 200;
  private readonly kept = new Map<string, RecordedOutcomes>();

  keep(jobId: string, recorded: RecordedOutcomes): void {
    this.kept.delete(jobId);
    this.kept.set(jobId, recorded);
    if (this.kept.size > SettleBacklog.MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }

  recall(jobId: string): RecordedOutcomes | undefined {
    return this.kept.get(jobId);
  }

  forget(jobId: string): void {
    this.kept.delete(jobId);
  }
}

export interface SettleSentBatch<Payload extends { sent?: RecordedOutcomes }> {
  store: Store;
  queue: JobQueue;
  logger: Logger;
  job: JobRow;
  owner: string;
  definition: JobDefinition<Payload>;
  payload: Payload;
  /**
   * The answers, needed only when the transaction fails: a function builds them then, so a batch that settles (nearly
   * all) never turns its 500 answers into an object (~0.9 KB of garbage per push in bench/fanout-cpu.ts).
   */
  recorded: RecordedOutcomes | (() => RecordedOutcomes);
  backlog: SettleBacklog;
  /** The settling transaction's work; throws LeaseLostError when `queue.complete` finds the lease lost. */
  write: (trx: Kysely<Database>) => Promise<void>;
  delaysMs?: readonly number[];
}

/** Commits `write` (see above); when it cannot, keeps the answers and throws JobRetryError so the job is tried again. */
export async function settleSentBatch<Payload extends { sent?: RecordedOutcomes }>(
  input: SettleSentBatch<Payload>,
): Promise<void> {
  const { store, job, logger } = input;
  const delays = input.delaysMs ?? SETTLE_RETRY_DELAYS_MS;
  let failure: unknown;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await store.db.transaction().execute(input.write);
      input.backlog.forget(job.id);
      return;
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      failure = error;
      if (attempt >= delays.length) break;
      logger.warn(
        { err: error, jobId: job.id, kind: job.kind, retryInMs: delays[attempt] },
        'settling a sent batch failed; trying again',
      );
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }

  const recorded = typeof input.recorded === 'function' ? input.recorded() : input.recorded;
  input.backlog.keep(job.id, recorded);
  let durable = input.payload.sent !== undefined;
  if (!durable) {
    try {
      durable = await input.definition.updatePayload(input.queue, store.db, job, input.owner, {
        ...input.payload,
        sent: recorded,
      });
    } catch (error) {
      logger.warn(
        { err: error, jobId: job.id },
        'could not record the sent batch in its job either; keeping it in memory',
      );
    }
  }
  const message = failure instanceof Error ? failure.message : String(failure);
  logger.error(
    { err: failure, jobId: job.id, kind: job.kind, attempt: job.attempt, kept: durable ? 'job payload' : 'memory' },
    'settling a sent batch failed; its answers are kept and the next attempt settles them without sending again',
  );
  throw new JobRetryError(
    `settling the sent batch failed (${message}); kept in ${durable ? 'the job payload' : 'memory'}, to settle without sending again`,
  );
}

/** This attempt is the job's last: if it fails, the queue fails the job for good. */
export function isLastAttempt(job: Pick<JobRow, 'attempt' | 'max_attempts'>): boolean {
  return job.attempt >= job.max_attempts;
}

/**
 * What a send job that is giving up (its last attempt failed) settles: the answers it has, with no further round, and
 * `attempts_exhausted` for every push it has no answer for, so the notification still reaches a final status.
 */
export function givenUpOutcomes(
  subscriberIds: readonly string[],
  recorded: RecordedOutcomes | undefined,
): Map<string, DeliveryOutcome> {
  const outcomes = new Map<string, DeliveryOutcome>();
  for (const id of subscriberIds)
    outcomes.set(id, recorded?.outcomes[id] ?? { kind: 'rejected', reason: 'attempts_exhausted' });
  return outcomes;
}
