import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../src/queue/retry-policy.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { openQueueFixture, type QueueFixture } from './queue-harness.ts';

/** The queue's contract, run unchanged against the SQLite and the PostgreSQL driver (River's driver test suite idea). */
let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

const lease = { leaseMs: 30_000 };

describe(`job queue conformance (${testDialect})`, () => {
  it('claims each job exactly once under concurrent claimers', async () => {
    const kind = f.kind('exclusive');
    await f.testStore.store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 200; i += 1) await f.queue.enqueue(trx, { kind, payload: { i } });
    });
    const seen: string[] = [];
    const claimer = async (owner: string) => {
      for (;;) {
        const jobs = await f.queue.claim({ owner, kinds: [kind], limit: 7, ...lease });
        if (jobs.length === 0) return;
        seen.push(...jobs.map((job) => job.id));
        for (const job of jobs) expect(job).toMatchObject({ state: 'running', attempt: 1, lease_owner: owner });
      }
    };
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(claimer));
    expect(seen).toHaveLength(200);
    expect(new Set(seen).size).toBe(200);
  });

  it('skips jobs of the lanes it is told to, and always claims jobs of no lane', async () => {
    const kind = f.kind('lanes');
    const { db } = f.testStore.store;
    const ios = await f.queue.enqueue(db, { kind, payload: null, lane: 'ios' });
    const android = await f.queue.enqueue(db, { kind, payload: null, lane: 'android' });
    const none = await f.queue.enqueue(db, { kind, payload: null });
    const claimed = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 10, skipLanes: ['ios'], ...lease });
    expect(claimed.map((job) => [job.id, job.lane])).toEqual([
      [android, 'android'],
      [none, null],
    ]);
    const [later] = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 10, ...lease });
    expect(later).toMatchObject({ id: ios, lane: 'ios' });
  });

  it('does not claim a job before its run_at', async () => {
    const kind = f.kind('run-at');
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null, runAt: f.clock.now() + 60_000 });
    expect(await f.queue.claim({ owner: 'w', kinds: [kind], limit: 10, ...lease })).toEqual([]);
    f.clock.advance(60_000);
    const [job] = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 10, ...lease });
    expect(job?.id).toBe(id);
  });

  it('returns expired leases through the rescuer, and the old owner can no longer finish the job', async () => {
    const kind = f.kind('rescue');
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    const [first] = await f.queue.claim({ owner: 'dead-worker', kinds: [kind], limit: 1, leaseMs: 1_000 });
    f.clock.advance(999);
    await f.queue.rescueExpired([kind]);
    expect((await f.queue.findJob(id))?.state).toBe('running');
    f.clock.advance(2);
    expect(await f.queue.rescueExpired([kind])).toBe(1);
    expect(await f.queue.findJob(id)).toMatchObject({ state: 'available', lease_owner: null, attempt: 1 });
    const [second] = await f.queue.claim({ owner: 'live-worker', kinds: [kind], limit: 1, ...lease });
    expect(second).toMatchObject({ id, attempt: 2 });
    expect(await f.queue.complete(f.testStore.store.db, first!, 'dead-worker')).toBe(false);
    expect(await f.queue.fail(first!, 'dead-worker', { message: 'late' })).toBeNull();
    expect(await f.queue.complete(f.testStore.store.db, second!, 'live-worker')).toBe(true);
    expect((await f.queue.findJob(id))?.state).toBe('completed');
  });

  it('retries with exponential backoff on the injected clock, then fails after max attempts', async () => {
    const kind = f.kind('retry');
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null, maxAttempts: 3 });
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [job] = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 1, ...lease });
      expect(job?.attempt).toBe(attempt);
      const state = await f.queue.fail(job!, 'w', { message: `boom ${attempt}` });
      if (attempt < 3) {
        expect(state).toBe('available');
        const delay = retryDelayMs(attempt, () => 0.5);
        expect((await f.queue.findJob(id))?.run_at).toBe(f.clock.now() + delay);
        f.clock.advance(delay - 1);
        expect(await f.queue.claim({ owner: 'w', kinds: [kind], limit: 1, ...lease })).toEqual([]);
        f.clock.advance(1);
      } else {
        expect(state).toBe('failed');
      }
    }
    const final = await f.queue.findJob(id);
    expect(final?.state).toBe('failed');
    expect(JSON.parse(final!.errors).map((entry: { message: string }) => entry.message)).toEqual([
      'boom 1',
      'boom 2',
      'boom 3',
    ]);
  });

  it("honours a provider's Retry-After when it is longer than the backoff", async () => {
    const kind = f.kind('retry-after');
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    const [job] = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 1, ...lease });
    await f.queue.fail(job!, 'w', { message: '429', retryAfterMs: 120_000 });
    expect((await f.queue.findJob(id))?.run_at).toBe(f.clock.now() + 120_000);
  });

  it('fails a job at once on a fatal error', async () => {
    const kind = f.kind('fatal');
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    const [job] = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 1, ...lease });
    expect(await f.queue.fail(job!, 'w', { message: 'bad credentials', fatal: true })).toBe('failed');
    expect((await f.queue.findJob(id))?.finalized_at).toBe(f.clock.now());
  });

  it('keeps one job per unique key', async () => {
    const kind = f.kind('unique');
    const key = `${kind}:ntf_1`;
    const first = await f.queue.enqueue(f.testStore.store.db, { kind, payload: 1, uniqueKey: key });
    const second = await f.queue.enqueue(f.testStore.store.db, { kind, payload: 2, uniqueKey: key });
    expect(second).toBe(first);
    const jobs = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 10, ...lease });
    expect(jobs.map((job) => JSON.parse(job.payload))).toEqual([1]);
  });

  it('enqueues inside the caller transaction: a rollback leaves no job', async () => {
    const kind = f.kind('outbox');
    await expect(
      f.testStore.store.db.transaction().execute(async (trx) => {
        await f.queue.enqueue(trx, { kind, payload: null });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await f.queue.claim({ owner: 'w', kinds: [kind], limit: 10, ...lease })).toEqual([]);
  });

  it('hands a released job back without counting the attempt', async () => {
    const kind = f.kind('release');
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    const [job] = await f.queue.claim({ owner: 'w', kinds: [kind], limit: 1, ...lease });
    await f.queue.release(job!, 'w');
    expect(await f.queue.findJob(id)).toMatchObject({ state: 'available', attempt: 0, lease_owner: null });
  });

  it('extends the leases of jobs its owner still runs', async () => {
    const kind = f.kind('heartbeat');
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    await f.queue.claim({ owner: 'w', kinds: [kind], limit: 1, leaseMs: 1_000 });
    f.clock.advance(900);
    await f.queue.extendLeases('w', [id], 1_000);
    f.clock.advance(900);
    await f.queue.rescueExpired([kind]);
    expect((await f.queue.findJob(id))?.state).toBe('running');
  });
});
