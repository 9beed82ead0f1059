import { ColumnNode, TableNode, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../../src/queue/job-queue.ts';
import { JobRetryError } from '../../src/queue/job-types.ts';
import { WorkerPool } from '../../src/queue/worker-pool.ts';
import { faultyStore, unavailableError } from '../delivery/engine/store-faults.ts';
import { openQueueFixture, silentLogger, startWorker, waitFor, type QueueFixture } from './queue-harness.ts';

let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

describe('worker pool', () => {
  it('runs jobs as they are enqueued and marks them completed', async () => {
    const kind = f.kind('run');
    const ran: number[] = [];
    const worker = startWorker(f, { [kind]: async (job) => void ran.push(JSON.parse(job.payload).n) });
    await worker.start();
    try {
      const ids: string[] = [];
      for (let n = 0; n < 20; n += 1) ids.push(await f.queue.enqueue(f.testStore.store.db, { kind, payload: { n } }));
      await waitFor(() => ran.length === 20, 10_000, '20 jobs');
      await waitFor(async () =>
        (await Promise.all(ids.map((id) => f.queue.findJob(id)))).every((job) => job?.state === 'completed'),
      );
      expect(ran.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    } finally {
      await worker.stop();
    }
  });

  it('never runs more jobs at once than its concurrency', async () => {
    const kind = f.kind('concurrency');
    let active = 0;
    let peak = 0;
    let finished = 0;
    const worker = startWorker(
      f,
      {
        [kind]: async () => {
          active += 1;
          peak = Math.max(peak, active);
          await new Promise((resolve) => setTimeout(resolve, 5));
          active -= 1;
          finished += 1;
        },
      },
      { concurrency: 3 },
    );
    await worker.start();
    try {
      for (let n = 0; n < 15; n += 1) await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
      await waitFor(() => finished === 15);
      expect(peak).toBeLessThanOrEqual(3);
    } finally {
      await worker.stop();
    }
  });

  it('schedules a retry when a handler asks for one', async () => {
    const kind = f.kind('retry');
    let calls = 0;
    const worker = startWorker(f, {
      [kind]: async () => {
        calls += 1;
        if (calls === 1) throw new JobRetryError('provider busy', 30_000);
      },
    });
    await worker.start();
    try {
      const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
      // The handler's call first, then the job read: a row read before the claim is also 'available' (its first run_at).
      await waitFor(async () => calls === 1 && (await f.queue.findJob(id))?.state === 'available');
      expect((await f.queue.findJob(id))?.run_at).toBeGreaterThanOrEqual(f.clock.now() + 30_000);
      f.clock.advance(30_000);
      worker.wake();
      await waitFor(async () => (await f.queue.findJob(id))?.state === 'completed');
      expect(calls).toBe(2);
    } finally {
      await worker.stop();
    }
  });

  it('records a failure once the database answers again, rather than leaving the job running until its lease lapses', async () => {
    const kind = f.kind('outage');
    // The queue of this worker writes through a store whose next failure records fail as a lost database would.
    const faulty = faultyStore(f.testStore.store);
    const queue = new JobQueue(faulty.store, f.queue.driver, f.clock, () => 0.5);
    let calls = 0;
    const handlers = {
      [kind]: async () => {
        calls += 1;
        if (calls === 1) throw unavailableError(faulty.store.dialect);
      },
    };
    // The injected clock never moves on its own: no lease lapses, no rescuer returns the job.
    const worker = new WorkerPool({
      queue,
      handlers,
      concurrency: 2,
      leaseMs: 30_000,
      pollIntervalMs: 50,
      rescueIntervalMs: 1_000,
      logger: silentLogger,
    });
    faulty.failNext(2, isJobFailureRecord, () => unavailableError(faulty.store.dialect));
    await worker.start();
    try {
      const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
      const recorded = async () => (await f.queue.findJob(id))?.errors !== '[]';
      await waitFor(recorded, 10_000, 'the failure to be recorded');
      expect(faulty.failures).toBe(2);
      expect(await f.queue.findJob(id)).toMatchObject({ state: 'available', attempt: 1, lease_owner: null });
      f.clock.advance(60_000);
      worker.wake();
      await waitFor(async () => (await f.queue.findJob(id))?.state === 'completed');
      expect(calls).toBe(2);
    } finally {
      await worker.stop();
    }
  });

  it('hands unfinished jobs back on stop, without counting the attempt', async () => {
    const kind = f.kind('shutdown');
    let started = false;
    const worker = startWorker(f, {
      [kind]: (_job, { signal }) =>
        new Promise<void>((_resolve, reject) => {
          started = true;
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    });
    await worker.start();
    const id = await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    await waitFor(() => started);
    await worker.stop(20);
    expect(await f.queue.findJob(id)).toMatchObject({ state: 'available', attempt: 0, lease_owner: null });
  });
});

/** The UPDATE that records a failed attempt of a job (`queue.fail`): the only one that writes `errors`. */
function isJobFailureRecord(node: RootOperationNode): boolean {
  if (node.kind !== 'UpdateQueryNode') return false;
  const table = node.table && TableNode.is(node.table) ? node.table.table.identifier.name : null;
  return (
    table === 'jobs' &&
    (node.updates ?? []).some((update) => ColumnNode.is(update.column) && update.column.column.name === 'errors')
  );
}
