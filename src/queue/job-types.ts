export type { JobRow } from '../store/queue-driver.ts';

export interface EnqueueInput {
  kind: string;
  payload: unknown;
  /** Milliseconds; defaults to now (the queue's clock). */
  runAt?: number;
  maxAttempts?: number;
  /** At most one job with this key exists; enqueueing it again does nothing and returns the existing job's id. */
  uniqueKey?: string;
  /** What the job waits on outside the process, for the worker's stall rule (worker-pool.ts); none by default. */
  lane?: string;
}

/** What a handler may report besides success. */
export class JobRetryError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'JobRetryError';
  }
}

/** A handler throws this when retrying cannot help: the job is failed at once. */
export class JobFatalError extends Error {
  override name = 'JobFatalError';
}
