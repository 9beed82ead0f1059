import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { newId } from '../domain/ids.ts';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';
import { StorageOutageLog } from '../store/storage-outage-log.ts';
import { isStorageUnavailable } from '../store/store-errors.ts';
import type { JobQueue } from './job-queue.ts';
import { JobFatalError, JobRetryError, type JobRow } from './job-types.ts';

/**
 * Runs one job. Resolve = done (the worker marks it completed unless the handler already did, atomically with its
 * effects, via `queue.complete(trx, job, context.owner)`, and says so by resolving to COMPLETED_BY_HANDLER);
 * JobRetryError = try later; JobFatalError = give up; any other error = retry with backoff.
 */
export type JobHandler = (job: JobRow, context: JobContext) => Promise<void | typeof COMPLETED_BY_HANDLER>;

/**
 * What a handler resolves to when its own committed transaction completed the job: the worker then skips its own
 * `complete`, a statement (and on SQLite a commit) that would change nothing (docs/performance.md, "Latency to first push").
 */
export const COMPLETED_BY_HANDLER = 'completed-by-handler';

/**
 * A running job of a lane (`jobs.lane`: what it waits on outside the process, a send job's platform) that has not
 * called `progressed()` for this long is stalled: APNs and FCM answer in tens of milliseconds, so a send job that has
 * heard nothing for 1 s while its pushes are out is waiting on a connection that stopped answering (until the HTTP/2
 * pool gives up on it: http2/session-pool.ts). Looked for every quarter of it, so a stalled job's slot is free for
 * another lane within 1.25 s plus a claim. A stalled job stops counting against the concurrency, and its lane's other
 * jobs are not claimed while it is stalled, so due jobs of other lanes run beside it: a silent APNs holds up no Android
 * push. Running jobs stay bounded: beyond the concurrency, only jobs of lanes with no stalled job, at most one extra
 * per stalled job. Mistaking a slow job for a stalled one (a starved event loop) only lets another lane's job start
 * beside it.
 */
export const STALLED_AFTER_MS = 1_000;

export interface JobContext {
  /** The worker's lease owner id, for `queue.complete(trx, job, owner)` inside the handler's own transaction. */
  owner: string;
  /** Aborted when the worker shuts down; a handler should stop and throw, and its job is handed back. */
  signal: AbortSignal;
  /** Set by the worker pool; absent where a test runs a handler by hand and claims the jobs it enqueues itself. */
  leased?: LeasedJobRunner;
  /** A job of a lane calls this whenever it makes progress (a push answered): see STALLED_AFTER_MS. */
  progressed?: () => void;
}

/**
 * Jobs a handler enqueues already leased to this worker (`queue.enqueueLeased`) and hands back to it to run, without
 * a claim: the claim is a transaction, plus the wait for the worker's loop to make it (docs/performance.md, "Latency to first push").
 */
export interface LeasedJobRunner {
  /** The lease to enqueue them with. */
  leaseMs: number;
  /**
   * Runs them once the transaction that enqueued them has committed, as if this worker had claimed them: heartbeat,
   * completion, failure and hand-back on stop as for any claimed job. A crash before they finish leaves them running
   * under a lease that lapses, and the rescuer hands them to a worker again, as for a claimed job.
   */
  run(jobs: readonly JobRow[]): void;
}

export interface WorkerPoolOptions {
  queue: JobQueue;
  handlers: Record<string, JobHandler>;
  /** Jobs run at once by this process. */
  concurrency: number;
  /** A claimed job belongs to this worker for this long; the heartbeat renews it every third of it. */
  leaseMs: number;
  /** How often to look for due jobs when nothing woke the worker (scheduled jobs, other processes on SQLite). */
  pollIntervalMs: number;
  /** How often the rescuer looks for expired leases. */
  rescueIntervalMs: number;
  logger: Logger;
  /** Counts finished attempts, rescues and lost leases (src/metrics/); absent in tests that do not look. */
  metrics?: ClarionMetrics;
}

interface RunningJob {
  job: JobRow;
  done: Promise<void>;
  /** performance.now() when it started or last called `progressed()` (STALLED_AFTER_MS). */
  progressedAt: number;
}

/**
 * Pauses between attempts to record a job's failure while the database is unavailable (see `untilRecorded`): doubling
 * from the first to the last, so a job is back in the queue within RECORD_RETRY_MAX_MS of the database's return.
 */
const RECORD_RETRY_MIN_MS = 250;
const RECORD_RETRY_MAX_MS = 4_000;

/**
 * The worker: claims due jobs up to its concurrency, runs them, heartbeats their leases, rescues jobs of dead
 * workers, and on stop hands unfinished jobs back so another worker can start them at once.
 */
export class WorkerPool {
  readonly owner = `${hostname()}:${process.pid}:${newId('job').slice(4, 14)}`;
  private readonly running = new Map<string, RunningJob>();
  private readonly abort = new AbortController();
  private readonly stopTasks: Array<() => void> = [];
  private stopped = false;
  private wakeRequested = false;
  /**
   * Due jobs may be waiting that the last claim could not take (it took as many as it had room for, or there was no
   * room when a wake-up came): a job that finishes then looks for more. Otherwise a finishing job does not claim:
   * new work wakes the worker when it is enqueued (in-process, LISTEN, or the poll), and a claim that finds nothing
   * costs a transaction per job on the small-notification path (docs/performance.md, "Latency to first push").
   */
  private backlogged = false;
  private wakeup: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private offLocal: (() => void) | null = null;
  /** whenIdle() callers waiting for the next claim that starts after they asked (see whenIdle). */
  private idleWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  /**
   * While the database is unavailable claims fail: the worker claims nothing (it has paused) and tries again at every
   * poll and wake-up, which is how it resumes once the database answers. Said once each way, not at every poll.
   */
  private readonly outage: StorageOutageLog;

  constructor(private readonly options: WorkerPoolOptions) {
    this.outage = new StorageOutageLog(options.logger, {
      down: 'the database is unavailable: the worker claims no jobs until it answers again (tried at every poll)',
      back: 'the database answers again: the worker claims jobs',
    });
  }

  async start(): Promise<void> {
    const wake = () => this.wake();
    this.offLocal = this.options.queue.onWake(wake);
    this.unlisten = await this.options.queue.driver.listen(wake, this.options.logger);
    // The poll, the heartbeat and the rescuer run on the queue's clock, which also times the leases they keep.
    const { clock } = this.options.queue;
    this.stopTasks.push(clock.every(this.options.pollIntervalMs, wake));
    this.stopTasks.push(clock.every(Math.max(50, Math.floor(this.options.leaseMs / 3)), () => void this.heartbeat()));
    this.stopTasks.push(clock.every(this.options.rescueIntervalMs, () => void this.rescue()));
    // Due jobs of other lanes may be waiting behind a job that just stalled: look again then, not only at the poll.
    // Real time, like the stall it looks for (a provider's silence).
    const stallCheck = setInterval(() => this.wakeIfStalled(), STALLED_AFTER_MS / 4);
    this.stopTasks.push(() => clearInterval(stallCheck));
    this.loop = this.run();
  }

  /** Asks the loop to look for work now. */
  wake(): void {
    this.wakeRequested = true;
    this.wakeup?.();
  }

  /**
   * Stops claiming, gives running jobs `graceMs` to finish, then aborts the rest and hands them back
   * (available again, attempt not counted).
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const stopTask of this.stopTasks) stopTask();
    this.wake();
    await this.loop;
    // Until nothing runs: a finishing job may start jobs it enqueued leased to this worker (JobContext.leased).
    const finished = (async () => {
      while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((entry) => entry.done));
    })();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.abort.abort();
    await finished;
    for (const waiter of this.idleWaiters.splice(0)) waiter.reject(new Error('the worker stopped before it was idle'));
    this.offLocal?.();
    await this.unlisten?.();
  }

  /**
   * Resolves once this worker has nothing running and a claim that began after the call found no due job, so a
   * test can move the clock, `await pool.whenIdle()` and then assert that nothing was sent: a bare sleep would
   * pass just as well when the worker is merely slow. Rejects if the worker stops first.
   */
  whenIdle(): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('the worker is stopped'));
    const idle = new Promise<void>((resolve, reject) => this.idleWaiters.push({ resolve, reject }));
    this.wake();
    return idle;
  }

  /** Wakes the loop when jobs wait for a slot (backlogged) and a running job of a lane has stalled. */
  private wakeIfStalled(): void {
    if (!this.backlogged) return;
    const now = performance.now();
    for (const entry of this.running.values()) {
      if (entry.job.lane !== null && now - entry.progressedAt > STALLED_AFTER_MS) return this.wake();
    }
  }

  /** How many jobs this worker is running now (for tests and metrics). */
  get activeCount(): number {
    return this.running.size;
  }

  private async run(): Promise<void> {
    const kinds = Object.keys(this.options.handlers);
    while (!this.stopped) {
      this.wakeRequested = false;
      // Only waiters registered before this claim began may be told "idle" by it (whenIdle).
      const idleWaiters = this.idleWaiters.splice(0);
      // Stalled jobs hold no slot, and their lanes are skipped (STALLED_AFTER_MS).
      const now = performance.now();
      const skipLanes = new Set<string>();
      let stalled = 0;
      for (const entry of this.running.values()) {
        if (entry.job.lane === null || now - entry.progressedAt <= STALLED_AFTER_MS) continue;
        stalled += 1;
        skipLanes.add(entry.job.lane);
      }
      const free = this.options.concurrency - (this.running.size - stalled);
      const wasIdle = this.running.size === 0;
      let claimed: JobRow[] = [];
      let claimFoundNothing = false;
      if (free > 0) {
        try {
          claimed = await this.options.queue.claim({
            owner: this.owner,
            kinds,
            limit: free,
            leaseMs: this.options.leaseMs,
            skipLanes: [...skipLanes],
          });
          this.outage.succeeded();
          claimFoundNothing = claimed.length === 0;
          this.backlogged = claimed.length === free;
        } catch (error) {
          if (!this.outage.failed(error))
            this.options.logger.error({ err: error }, 'claiming jobs failed; retrying at the next poll');
        }
      } else {
        this.backlogged = true;
      }
      for (const job of claimed) this.execute(job);
      // A job that finished during the claim may have enqueued work the claim could not see: not idle yet.
      if (wasIdle && claimFoundNothing && this.running.size === 0) for (const waiter of idleWaiters) waiter.resolve();
      else this.idleWaiters.unshift(...idleWaiters);
      // More may be waiting if we took all we could; otherwise sleep until woken or polled.
      if (claimed.length > 0 && claimed.length === free) continue;
      if (!this.wakeRequested && !this.stopped) {
        await new Promise<void>((resolve) => (this.wakeup = resolve));
        this.wakeup = null;
      }
    }
  }

  private execute(job: JobRow): void {
    const handler = this.options.handlers[job.kind]!;
    const leased: LeasedJobRunner = {
      leaseMs: this.options.leaseMs,
      run: (jobs) => jobs.forEach((leasedJob) => this.execute(leasedJob)),
    };
    const entry: RunningJob = { job, done: Promise.resolve(), progressedAt: performance.now() };
    const context: JobContext = {
      owner: this.owner,
      signal: this.abort.signal,
      leased,
      progressed: () => void (entry.progressedAt = performance.now()),
    };
    entry.done = (async () => {
      try {
        const result = await handler(job, context);
        if (result !== COMPLETED_BY_HANDLER)
          await this.options.queue.complete(this.options.queue.store.db, job, this.owner);
        this.options.metrics?.jobsFinished.inc({ kind: job.kind, result: 'completed' });
      } catch (error) {
        await this.handleFailure(job, error);
      } finally {
        this.running.delete(job.id);
        if (this.backlogged || this.idleWaiters.length > 0) this.wake();
      }
    })();
    this.running.set(job.id, entry);
  }

  private async handleFailure(job: JobRow, error: unknown): Promise<void> {
    const { queue, logger } = this.options;
    try {
      if (this.abort.signal.aborted) {
        await queue.release(job, this.owner);
        this.options.metrics?.jobsFinished.inc({ kind: job.kind, result: 'released' });
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const state = await this.untilRecorded(() =>
        queue.fail(job, this.owner, {
          message,
          retryAfterMs: error instanceof JobRetryError ? error.retryAfterMs : null,
          fatal: error instanceof JobFatalError,
        }),
      );
      if (state === null) this.options.metrics?.leasesLost.inc();
      else this.options.metrics?.jobsFinished.inc({ kind: job.kind, result: state === 'failed' ? 'failed' : 'retry' });
      const log = {
        jobId: job.id,
        kind: job.kind,
        attempt: job.attempt,
        maxAttempts: job.max_attempts,
        state,
        err: error,
      };
      if (state === 'failed') logger.error(log, 'job failed for good');
      else logger.warn(log, 'job failed; will retry');
    } catch (failure) {
      logger.error(
        { err: failure, jobId: job.id },
        'could not record a job failure; the lease will expire and the rescuer will retry it',
      );
    }
  }

  /**
   * Runs `record` (a job's failure) until it is written. The jobs a database outage interrupts fail, and their
   * failures cannot be written either while it lasts: left running, such a job would wait for its lease to lapse and
   * the rescuer to return it, up to a lease and a half after the database is back. So the worker keeps the job's slot
   * (it can claim nothing meanwhile anyway) and tries again, RECORD_RETRY_MIN_MS doubling to RECORD_RETRY_MAX_MS,
   * while the error is one `isStorageUnavailable` recognizes; another error, or the worker stopping, leaves the job to
   * its lease and the rescuer as before.
   */
  private async untilRecorded<T>(record: () => Promise<T>): Promise<T> {
    for (let delayMs = RECORD_RETRY_MIN_MS; ; delayMs = Math.min(delayMs * 2, RECORD_RETRY_MAX_MS)) {
      try {
        return await record();
      } catch (error) {
        if (!isStorageUnavailable(error) || this.abort.signal.aborted) throw error;
        await sleep(delayMs, undefined, { signal: this.abort.signal }).catch(() => {});
      }
    }
  }

  private async heartbeat(): Promise<void> {
    try {
      await this.options.queue.extendLeases(this.owner, [...this.running.keys()], this.options.leaseMs);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'lease heartbeat failed');
    }
  }

  private async rescue(): Promise<void> {
    try {
      const rescued = await this.options.queue.rescueExpired(Object.keys(this.options.handlers));
      if (rescued > 0) {
        this.options.metrics?.leaseExpiries.inc(rescued);
        this.options.logger.warn({ rescued }, 'rescued jobs whose worker stopped renewing its lease');
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'rescuer failed');
    }
  }
}
