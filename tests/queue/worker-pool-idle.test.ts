import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQueueFixture, startWorker, waitFor, type QueueFixture } from './queue-harness.ts';

/** The idle signal tests use to prove that nothing happened (src/queue/worker-pool.ts, whenIdle). */
let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

describe('worker pool whenIdle()', () => {
  it('waits for running jobs and for the jobs they enqueue', async () => {
    const first = f.kind('first');
    const second = f.kind('second');
    const ran: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = startWorker(f, {
      [first]: async () => {
        ran.push('first started');
        await released;
        // Recorded before the enqueue: the enqueue wakes the worker, which may run the second job before this one's
        // await returns (CI saw that on PostgreSQL once), and the order of those two is not what this test is about.
        ran.push('first enqueues second');
        await f.queue.enqueue(f.testStore.store.db, { kind: second, payload: null });
      },
      [second]: async () => void ran.push('second'),
    });
    await worker.start();
    try {
      const id = await f.queue.enqueue(f.testStore.store.db, { kind: first, payload: null });
      await waitFor(() => ran.includes('first started'), 10_000, 'the first job to start');
      // Asked while the first job runs: a claim finds nothing due then, but the worker is not idle.
      const idle = worker.whenIdle();
      release();
      await idle;
      expect(ran).toEqual(['first started', 'first enqueues second', 'second']);
      expect((await f.queue.findJob(id))?.state).toBe('completed');
    } finally {
      await worker.stop();
    }
  });

  it('answers for the clock as it is when asked: a job that became due since the last claim runs first', async () => {
    const kind = f.kind('later');
    const ran: number[] = [];
    const worker = startWorker(f, { [kind]: async (job) => void ran.push(JSON.parse(job.payload).n) });
    await worker.start();
    try {
      await f.queue.enqueue(f.testStore.store.db, { kind, payload: { n: 1 }, runAt: f.clock.now() + 60_000 });
      await worker.whenIdle();
      expect(ran).toEqual([]);
      f.clock.advance(60_000);
      await worker.whenIdle();
      expect(ran).toEqual([1]);
    } finally {
      await worker.stop();
    }
  });

  it('rejects when the worker stops before it is idle', async () => {
    const kind = f.kind('stuck');
    let started = false;
    const worker = startWorker(f, {
      [kind]: (_job, context) =>
        new Promise<void>((_resolve, reject) => {
          started = true;
          context.signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    });
    await worker.start();
    await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    await waitFor(() => started, 10_000, 'the job to start');
    const idle = expect(worker.whenIdle()).rejects.toThrow('the worker stopped before it was idle');
    await worker.stop(0);
    await idle;
    await expect(worker.whenIdle()).rejects.toThrow('the worker is stopped');
  });
});
