import { EventEmitter } from 'node:events';
import type { Insertable, Kysely } from 'kysely';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import type { Store } from '../store/database.ts';
import { preparedQuery } from '../store/prepared-query.ts';
import type { Database, JobsTable } from '../store/schema.ts';
import { isUniqueViolation } from '../store/store-errors.ts';
import type { EnqueueInput, JobRow } from './job-types.ts';
import type { QueueDriver } from '../store/queue-driver.ts';
import { retryDelayMs } from './retry-policy.ts';

export const DEFAULT_MAX_ATTEMPTS = 25;

/**
 * The durable job queue in the database (docs/design.md 3.3): a transactional outbox. Callers enqueue inside the
 * transaction that creates the work, so a job exists exactly when its cause was committed. Every state change of a
 * running job is guarded by its lease owner, so a worker whose lease was rescued cannot complete or fail the job
 * that someone else now runs.
 */
export class JobQueue {
  private readonly local = new EventEmitter();

  constructor(
    readonly store: Store,
    readonly driver: QueueDriver,
    readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {
    this.local.setMaxListeners(0);
  }

  static forStore(store: Store, clock: Clock): JobQueue {
    return new JobQueue(store, store.queueDriver, clock);
  }

  /** Inserts a job in `db` (pass the caller's transaction). Returns the job id (the existing one for a known unique key). */
  async enqueue(db: Kysely<Database>, input: EnqueueInput): Promise<string> {
    return (await this.insert(db, input)).id;
  }

  /**
   * As `enqueue`, but says whether this call made the job: false when one with its unique key was there already, so
   * a caller that counts what it enqueues (a Live Activity dispatch paging again after a crash) counts each job once.
   */
  async enqueueNew(db: Kysely<Database>, input: EnqueueInput): Promise<boolean> {
    return (await this.insert(db, input)).inserted;
  }

  private async insert(db: Kysely<Database>, input: EnqueueInput): Promise<{ id: string; inserted: boolean }> {
    const row = this.newJobRow(input);
    let inserted = false;
    try {
      // RETURNING tells a fresh insert from a known unique key in the same statement: only the latter needs the
      // lookup below (one statement fewer on every accepted notification, docs/performance.md, "Accept path").
      const [returned] = await insertJob(db, row);
      inserted = returned !== undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    if (!inserted && input.uniqueKey !== undefined) {
      const existing = await db
        .selectFrom('jobs')
        .select('id')
        .where('unique_key', '=', input.uniqueKey)
        .executeTakeFirst();
      if (existing && existing.id !== row.id) return { id: existing.id, inserted: false };
    }
    await this.driver.announce(db);
    this.wakeLocalWorkers();
    return { id: row.id, inserted };
  }

  /**
   * Inserts a job in `db` (pass the caller's transaction) already running under `owner`'s lease, its first attempt
   * counted as a claim would count it: the caller starts it itself once the transaction commits (JobContext.leased),
   * without a claim. Nobody else is told: no other worker could take it. A crash before it finishes leaves it to the
   * rescuer once the lease lapses, like any claimed job. Null when a job with its unique key exists (that one runs
   * the usual way).
   */
  async enqueueLeased(
    db: Kysely<Database>,
    input: EnqueueInput,
    lease: { owner: string; leaseMs: number },
  ): Promise<JobRow | null> {
    const row: JobRow = {
      ...this.newJobRow(input),
      state: 'running',
      attempt: 1,
      lease_owner: lease.owner,
      lease_expires_at: this.clock.now() + lease.leaseMs,
    };
    try {
      const [returned] = await insertJob(db, row);
      return returned === undefined ? null : row;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return null;
    }
  }

  /**
   * The row `enqueue` inserts, for a caller that inserts it within a statement of its own (the accept path's single
   * statement on PostgreSQL, store-accepted-notification.ts); that caller announces the job itself and then calls
   * `wakeLocalWorkers`.
   */
  newJobRow(input: EnqueueInput): JobRow {
    const now = this.clock.now();
    return {
      id: newId('job', now),
      kind: input.kind,
      payload: JSON.stringify(input.payload ?? null),
      state: 'available',
      run_at: input.runAt ?? now,
      attempt: 0,
      max_attempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      lease_owner: null,
      lease_expires_at: null,
      errors: '[]',
      unique_key: input.uniqueKey ?? null,
      lane: input.lane ?? null,
      created_at: now,
      updated_at: now,
      finalized_at: null,
    };
  }

  /**
   * In-process workers wake at once; on SQLite their claim waits for the enqueueing transaction's commit anyway,
   * because the single connection is held until then.
   */
  wakeLocalWorkers(): void {
    this.local.emit('wake');
  }

  /**
   * One statement, atomic by itself on both databases, so no transaction around it: BEGIN and COMMIT were two of the
   * claim's three round trips. Measured with the worker's other statements (docs/performance.md, "Latency to first push"): a socket
   * write per statement was ~31 % of the PostgreSQL worker's CPU, and 27 → 22 statements per one-push notification
   * with them compiled once and named took its CPU from 15.2–15.8 to 10.1–10.5 ms (busy machine).
   */
  /** Claims up to `limit` due jobs of `kinds`, none of the lanes in `skipLanes` (worker-pool.ts). */
  async claim(input: {
    owner: string;
    kinds: string[];
    limit: number;
    leaseMs: number;
    skipLanes?: readonly string[];
  }): Promise<JobRow[]> {
    if (input.limit <= 0 || input.kinds.length === 0) return [];
    return this.driver.claim(this.store.db, { ...input, skipLanes: input.skipLanes ?? [], now: this.clock.now() });
  }

  /** Marks a running job completed; false when the lease was lost (the job belongs to someone else now). */
  async complete(db: Kysely<Database>, job: JobRow, owner: string): Promise<boolean> {
    const [completed] = await completeJob(db, { id: job.id, owner, now: this.clock.now() });
    return completed !== undefined;
  }

  /**
   * Records a failed attempt: back to `available` after the retry delay while attempts remain, else `failed`.
   * `fatal` fails it at once. Returns the new state, or null when the lease was lost.
   */
  async fail(
    job: JobRow,
    owner: string,
    error: { message: string; retryAfterMs?: number | null; fatal?: boolean },
  ): Promise<'available' | 'failed' | null> {
    const now = this.clock.now();
    const errors = [
      ...(JSON.parse(job.errors) as unknown[]),
      { attempt: job.attempt, at: now, message: error.message.slice(0, 2000) },
    ];
    const exhausted = error.fatal === true || job.attempt >= job.max_attempts;
    const [failed] = await failJob(this.store.db, {
      id: job.id,
      owner,
      state: exhausted ? 'failed' : 'available',
      runAt: exhausted ? job.run_at : now + retryDelayMs(job.attempt, this.random, error.retryAfterMs ?? null),
      errors: JSON.stringify(errors),
      now,
      finalizedAt: exhausted ? now : null,
    });
    if (failed === undefined) return null;
    if (!exhausted) this.local.emit('wake');
    return exhausted ? 'failed' : 'available';
  }

  /** Gives a running job back untouched (graceful shutdown): available now, and the attempt is not counted. */
  async release(job: JobRow, owner: string): Promise<void> {
    const now = this.clock.now();
    await this.store.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'available',
        attempt: eb('attempt', '-', 1),
        lease_owner: null,
        lease_expires_at: null,
        run_at: now,
        updated_at: now,
      }))
      .where('id', '=', job.id)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * Replaces a running job's payload (progress a long job must not lose, like a dispatch's cursor), guarded by the
   * lease owner; false when the lease was lost. Pass the caller's transaction so progress commits with its effects.
   */
  async updatePayload(db: Kysely<Database>, job: JobRow, owner: string, payload: unknown): Promise<boolean> {
    const [updated] = await updateJobPayload(db, {
      id: job.id,
      owner,
      payload: JSON.stringify(payload),
      now: this.clock.now(),
    });
    return updated !== undefined;
  }

  /** Extends the leases of jobs this owner still runs (the worker's heartbeat). */
  async extendLeases(owner: string, jobIds: string[], leaseMs: number): Promise<void> {
    if (jobIds.length === 0) return;
    const now = this.clock.now();
    await this.store.db
      .updateTable('jobs')
      .set({ lease_expires_at: now + leaseMs, updated_at: now })
      .where('id', 'in', jobIds)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * The rescuer: running jobs whose lease expired belonged to a worker that died. They go back to available (their
   * attempt stays counted), or to failed when that was their last attempt. Each worker rescues the kinds it runs.
   * Returns how many were rescued.
   */
  async rescueExpired(kinds: string[]): Promise<number> {
    if (kinds.length === 0) return 0;
    const now = this.clock.now();
    // Running jobs whose lease has lapsed; the last attempt's fail for good first, then the rest go back.
    const expired = () =>
      this.store.db
        .updateTable('jobs')
        .where('state', '=', 'running')
        .where('kind', 'in', kinds)
        .where('lease_expires_at', '<', now);
    const failed = await expired()
      .set({ state: 'failed', lease_owner: null, lease_expires_at: null, updated_at: now, finalized_at: now })
      .whereRef('attempt', '>=', 'max_attempts')
      .executeTakeFirst();
    const rescued = await expired()
      .set({ state: 'available', lease_owner: null, lease_expires_at: null, run_at: now, updated_at: now })
      .executeTakeFirst();
    const count = Number(rescued.numUpdatedRows) + Number(failed.numUpdatedRows);
    if (Number(rescued.numUpdatedRows) > 0) this.local.emit('wake');
    return count;
  }

  /** Deletes finished jobs older than `ageMs` (completed and failed), keeping the table small. */
  async deleteFinished(ageMs: number): Promise<number> {
    const result = await this.store.db
      .deleteFrom('jobs')
      .where('state', 'in', ['completed', 'failed'])
      .where('finalized_at', '<', this.clock.now() - ageMs)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async findJob(id: string): Promise<JobRow | undefined> {
    return this.store.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Subscribes to in-process wake-ups; returns the unsubscribe function. */
  onWake(listener: () => void): () => void {
    this.local.on('wake', listener);
    return () => this.local.off('wake', listener);
  }
}

/**
 * The job INSERT, compiled once per dialect (src/store/prepared-query.ts): it runs on every accepted notification
 * and every page of a dispatch, and building it with Kysely each time was a good part of the accept path's CPU.
 */
const insertJob = preparedQuery((db, param, _row: Insertable<JobsTable>) =>
  db
    .insertInto('jobs')
    .values({
      id: param('id'),
      kind: param('kind'),
      payload: param('payload'),
      state: param('state'),
      run_at: param('run_at'),
      attempt: param('attempt'),
      max_attempts: param('max_attempts'),
      lease_owner: param('lease_owner'),
      lease_expires_at: param('lease_expires_at'),
      errors: param('errors'),
      unique_key: param('unique_key'),
      lane: param('lane'),
      created_at: param('created_at'),
      updated_at: param('updated_at'),
      finalized_at: param('finalized_at'),
    })
    .onConflict((conflict) => conflict.column('unique_key').doNothing())
    .returning('id'),
);

/**
 * The state changes of a running job under its lease, compiled once (src/store/prepared-query.ts) and named statements
 * on PostgreSQL: `complete` runs in every job's last transaction, `updatePayload` on every page of a long dispatch.
 * RETURNING tells whether the lease still held (no row: someone else owns the job now).
 */
const completeJob = preparedQuery((db, param, _values: { id: string; owner: string; now: number }) =>
  db
    .updateTable('jobs')
    .set({
      state: 'completed',
      lease_owner: null,
      lease_expires_at: null,
      updated_at: param('now'),
      finalized_at: param('now'),
    })
    .where('id', '=', param<string>('id'))
    .where('state', '=', 'running')
    .where('lease_owner', '=', param<string>('owner'))
    .returning('id'),
);

const updateJobPayload = preparedQuery(
  (db, param, _values: { id: string; owner: string; payload: string; now: number }) =>
    db
      .updateTable('jobs')
      .set({ payload: param('payload'), updated_at: param('now') })
      .where('id', '=', param<string>('id'))
      .where('state', '=', 'running')
      .where('lease_owner', '=', param<string>('owner'))
      .returning('id'),
);

const failJob = preparedQuery(
  (
    db,
    param,
    _values: {
      id: string;
      owner: string;
      state: 'available' | 'failed';
      runAt: number;
      errors: string;
      now: number;
      finalizedAt: number | null;
    },
  ) =>
    db
      .updateTable('jobs')
      .set({
        state: param('state'),
        run_at: param('runAt'),
        lease_owner: null,
        lease_expires_at: null,
        errors: param('errors'),
        updated_at: param('now'),
        finalized_at: param('finalizedAt'),
      })
      .where('id', '=', param<string>('id'))
      .where('state', '=', 'running')
      .where('lease_owner', '=', param<string>('owner'))
      .returning('id'),
);
