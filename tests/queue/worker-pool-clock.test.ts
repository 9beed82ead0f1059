import { afterEach, describe, expect, it } from 'vitest';
import { openQueueFixture, startWorker, waitFor, type QueueFixture } from './queue-harness.ts';

// The worker's poll and rescuer run on the queue's clock (src/domain/clock.ts `every`): with a clock whose tasks run
// only when the test moves it, moving it is what makes the worker look again.
let fixture: QueueFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('the worker pool on a manual clock', () => {
  it('claims a job that came due when the clock reaches its next poll', async () => {
    fixture = await openQueueFixture({ manualTasks: true });
    const kind = fixture.kind('due-later');
    const ran: string[] = [];
    const worker = startWorker(
      fixture,
      {
        [kind]: async (job) => {
          ran.push(job.id);
        },
      },
      { pollIntervalMs: 60_000 },
    );
    await worker.start();
    try {
      const id = await fixture.queue.enqueue(fixture.testStore.store.db, {
        kind,
        payload: {},
        runAt: fixture.clock.now() + 10_000,
      });
      // Enqueuing woke the worker, which found nothing due yet; no poll runs until the clock reaches one.
      await worker.whenIdle();
      expect(ran).toEqual([]);
      fixture.clock.advance(60_000);
      await waitFor(() => ran.length === 1, 5_000, 'the job to run');
      expect(ran).toEqual([id]);
    } finally {
      await worker.stop(1_000);
    }
  });

  it('hands back a job whose lease expired when the clock passes the rescue interval, and runs it', async () => {
    fixture = await openQueueFixture({ manualTasks: true });
    const kind = fixture.kind('orphaned');
    const { db } = fixture.testStore.store;
    // Claimed by a worker that died: leased to nobody alive, expiring in 30 s of the clock.
    const orphan = await fixture.queue.enqueueLeased(db, { kind, payload: {} }, { owner: 'dead', leaseMs: 30_000 });
    const ran: string[] = [];
    const worker = startWorker(
      fixture,
      {
        [kind]: async (job) => {
          ran.push(job.id);
        },
      },
      { pollIntervalMs: 3_600_000, rescueIntervalMs: 60_000 },
    );
    await worker.start();
    try {
      await worker.whenIdle();
      expect(ran).toEqual([]);
      fixture.clock.advance(60_000);
      await waitFor(() => ran.length === 1, 5_000, 'the job to run');
      expect(ran).toEqual([orphan!.id]);
    } finally {
      await worker.stop(1_000);
    }
  });
});
