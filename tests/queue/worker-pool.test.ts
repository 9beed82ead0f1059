import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRetryError } from '../../src/queue/job-types.ts';
import { openQueueFixture, startWorker, waitFor, type QueueFixture } from './queue-harness.ts';

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
      await waitFor(async () => (await Promise.all(ids.map((id) => f.queue.findJob(id)))).every((job) => job?.state === 'completed'));
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
      await waitFor(async () => (await f.queue.findJob(id))?.state === 'available' && calls === 1);
      expect((await f.queue.findJob(id))?.run_at).toBeGreaterThanOrEqual(f.clock.now() + 30_000);
      f.clock.advance(30_000);
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
