import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALLED_AFTER_MS } from '../../src/queue/worker-pool.ts';
import { openQueueFixture, startWorker, waitFor, type QueueFixture } from './queue-harness.ts';

/**
 * Lanes (src/queue/worker-pool.ts): a job that waits on something outside the process (a send job on its platform's
 * provider) and stops making progress no longer holds its slot against due jobs of other lanes, and its own lane's
 * other jobs wait until it progresses or ends.
 */
let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

describe('worker pool lanes', () => {
  it("lets due jobs of another lane run beside jobs of a lane that stopped making progress, and claims no more of that lane's", async () => {
    const kind = f.kind('lanes');
    const started: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = startWorker(
      f,
      {
        [kind]: async (job) => {
          started.push(job.lane!);
          // A silent provider: nothing comes back until the test lets it.
          if (job.lane === 'ios') await released;
        },
      },
      { concurrency: 2 },
    );
    const { db } = f.testStore.store;
    // Oldest first: three iOS jobs ahead of two Android ones, as a fan-out's pages enqueue them.
    const ids: string[] = [];
    for (const lane of ['ios', 'ios', 'ios', 'android', 'android'])
      ids.push(await f.queue.enqueue(db, { kind, payload: {}, lane }));
    await worker.start();
    try {
      await waitFor(
        async () =>
          (await Promise.all(ids.slice(3).map((id) => f.queue.findJob(id)))).every((job) => job?.state === 'completed'),
        10_000 + STALLED_AFTER_MS,
        'the Android jobs to run beside the stalled iOS ones',
      );
      // The third iOS job waited: its lane had stalled.
      expect(started).toEqual(['ios', 'ios', 'android', 'android']);
      expect((await f.queue.findJob(ids[2]!))?.state).toBe('available');
      release();
      await waitFor(
        async () =>
          (await Promise.all(ids.map((id) => f.queue.findJob(id)))).every((job) => job?.state === 'completed'),
        10_000,
        'every job',
      );
      expect(started).toEqual(['ios', 'ios', 'android', 'android', 'ios']);
    } finally {
      release();
      await worker.stop();
    }
  });

  it('keeps to its concurrency while the jobs it runs make progress', async () => {
    const kind = f.kind('progressing');
    const events: string[] = [];
    const worker = startWorker(
      f,
      {
        [kind]: async (job, context) => {
          events.push(`start ${job.lane}`);
          if (job.lane === 'ios') {
            // Answers keep coming, for longer than a stall takes to be noticed.
            const until = performance.now() + STALLED_AFTER_MS * 1.5;
            while (performance.now() < until) {
              context.progressed?.();
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }
          events.push(`end ${job.lane}`);
        },
      },
      { concurrency: 1 },
    );
    const { db } = f.testStore.store;
    const ids = [
      await f.queue.enqueue(db, { kind, payload: {}, lane: 'ios' }),
      await f.queue.enqueue(db, { kind, payload: {}, lane: 'android' }),
    ];
    await worker.start();
    try {
      await waitFor(
        async () =>
          (await Promise.all(ids.map((id) => f.queue.findJob(id)))).every((job) => job?.state === 'completed'),
        10_000 + STALLED_AFTER_MS * 2,
        'both jobs',
      );
      expect(events).toEqual(['start ios', 'end ios', 'start android', 'end android']);
    } finally {
      await worker.stop();
    }
  });
});
