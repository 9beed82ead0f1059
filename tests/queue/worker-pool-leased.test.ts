import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRow } from '../../src/queue/job-types.ts';
import { COMPLETED_BY_HANDLER } from '../../src/queue/worker-pool.ts';
import { openQueueFixture, startWorker, waitFor, type QueueFixture } from './queue-harness.ts';

/**
 * Jobs a handler enqueues already leased to its worker and hands back to run (JobContext.leased): the small
 * notification's send job (src/delivery/dispatch-job.ts). They must run without a claim, and a worker that dies
 * before running them must leave them to the rescuer like any job it had claimed.
 */
let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

/** Records the kinds of every job the queue hands out through a claim. */
function recordClaims(): { kinds: string[]; restore(): void } {
  const kinds: string[] = [];
  const claim = f.queue.claim.bind(f.queue);
  f.queue.claim = async (input) => {
    const jobs = await claim(input);
    kinds.push(...jobs.map((job) => job.kind));
    return jobs;
  };
  return { kinds, restore: () => void (f.queue.claim = claim) };
}

describe('jobs enqueued leased to the worker', () => {
  it('run on that worker once their transaction commits, without a claim, and complete', async () => {
    const parent = f.kind('parent');
    const child = f.kind('child');
    const ran: string[] = [];
    let childId = '';
    const claims = recordClaims();
    const worker = startWorker(f, {
      [parent]: async (job, { owner, leased }) => {
        const leasedJobs = await f.testStore.store.db.transaction().execute(async (trx) => {
          const row = await f.queue.enqueueLeased(
            trx,
            { kind: child, payload: { from: job.id } },
            { owner, leaseMs: leased!.leaseMs },
          );
          return row ? [row] : [];
        });
        childId = leasedJobs[0]!.id;
        leased!.run(leasedJobs);
      },
      [child]: async (job) => void ran.push(job.id),
    });
    await worker.start();
    try {
      await f.queue.enqueue(f.testStore.store.db, { kind: parent, payload: null });
      await waitFor(() => ran.length === 1, 10_000, 'the leased job to run');
      await waitFor(
        async () => (await f.queue.findJob(childId))?.state === 'completed',
        10_000,
        'the leased job to complete',
      );
      expect(ran).toEqual([childId]);
      expect(claims.kinds).toEqual([parent]);
      expect(await f.queue.findJob(childId)).toMatchObject({ attempt: 1, lease_owner: null });
    } finally {
      claims.restore();
      await worker.stop();
    }
  });

  it('of a worker that died before running them are rescued once the lease lapses, and run by another worker', async () => {
    const kind = f.kind('orphan');
    const ran: JobRow[] = [];
    const orphan = await f.queue.enqueueLeased(
      f.testStore.store.db,
      { kind, payload: null },
      { owner: 'a-worker-that-died', leaseMs: 30_000 },
    );
    expect(orphan).toMatchObject({ state: 'running', attempt: 1, lease_owner: 'a-worker-that-died' });
    expect(await f.queue.findJob(orphan!.id)).toMatchObject({
      state: 'running',
      attempt: 1,
      lease_owner: 'a-worker-that-died',
    });
    const worker = startWorker(f, { [kind]: async (job) => void ran.push(job) });
    await worker.start();
    try {
      f.clock.advance(30_001);
      await waitFor(() => ran.length === 1, 10_000, 'the rescued job to run');
      expect(ran[0]).toMatchObject({ id: orphan!.id, attempt: 2, lease_owner: worker.owner });
    } finally {
      await worker.stop();
    }
  });

  it('with a unique key already taken are not enqueued again', async () => {
    const kind = f.kind('unique');
    const uniqueKey = `${kind}:once`;
    const first = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null, uniqueKey });
    expect(
      await f.queue.enqueueLeased(
        f.testStore.store.db,
        { kind, payload: null, uniqueKey },
        { owner: 'me', leaseMs: 30_000 },
      ),
    ).toBeNull();
    expect(await f.queue.findJob(first)).toMatchObject({ state: 'available', lease_owner: null });
  });
});

describe('a handler that completed its job in its own transaction', () => {
  it('is not completed a second time by the worker', async () => {
    const kind = f.kind('self-completing');
    const completions: string[] = [];
    const complete = f.queue.complete.bind(f.queue);
    f.queue.complete = async (db, job, owner) => {
      completions.push(job.id);
      return complete(db, job, owner);
    };
    const worker = startWorker(f, {
      [kind]: async (job, { owner }) => {
        await f.testStore.store.db.transaction().execute((trx) => f.queue.complete(trx, job, owner));
        return COMPLETED_BY_HANDLER;
      },
    });
    await worker.start();
    try {
      const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
      await waitFor(async () => (await f.queue.findJob(id))?.state === 'completed', 10_000, 'the job to complete');
      await worker.whenIdle();
      expect(completions).toEqual([id]);
    } finally {
      f.queue.complete = complete;
      await worker.stop();
    }
  });
});
