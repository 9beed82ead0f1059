import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClarionMetrics } from '../../src/metrics/clarion-metrics.ts';
import { JobFatalError, JobRetryError } from '../../src/queue/job-types.ts';
import { WorkerPool, type JobHandler } from '../../src/queue/worker-pool.ts';
import { eventually } from '../harness/wait-for.ts';
import { openQueueFixture, silentLogger, waitFor, type QueueFixture } from './queue-harness.ts';

let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

async function counted(
  metrics: ClarionMetrics,
  name: 'jobsFinished' | 'leaseExpiries' | 'leasesLost',
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metrics[name].get();
  const matching = values.filter((value) =>
    Object.entries(labels).every(([key, wanted]) => (value.labels as Record<string, unknown>)[key] === wanted),
  );
  return matching.reduce((sum, value) => sum + value.value, 0);
}

function pool(metrics: ClarionMetrics, handlers: Record<string, JobHandler>): WorkerPool {
  return new WorkerPool({
    queue: f.queue,
    handlers,
    concurrency: 4,
    leaseMs: 30_000,
    pollIntervalMs: 50,
    rescueIntervalMs: 100,
    logger: silentLogger,
    metrics,
  });
}

describe('worker pool metrics', () => {
  it('counts finished attempts by kind and result: completed, retry, failed', async () => {
    const metrics = new ClarionMetrics();
    const ok = f.kind('ok');
    const flaky = f.kind('flaky');
    const broken = f.kind('broken');
    const worker = pool(metrics, {
      [ok]: async () => {},
      [flaky]: async () => {
        throw new JobRetryError('later', 3_600_000);
      },
      [broken]: async () => {
        throw new JobFatalError('never');
      },
    });
    await worker.start();
    try {
      for (const kind of [ok, ok, flaky, broken]) await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
      await worker.whenIdle();
      expect(await counted(metrics, 'jobsFinished', { kind: ok, result: 'completed' })).toBe(2);
      expect(await counted(metrics, 'jobsFinished', { kind: flaky, result: 'retry' })).toBe(1);
      expect(await counted(metrics, 'jobsFinished', { kind: broken, result: 'failed' })).toBe(1);
      expect(await counted(metrics, 'jobsFinished')).toBe(4);
    } finally {
      await worker.stop();
    }
  });

  it('counts the jobs its rescuer finds with an expired lease', async () => {
    const metrics = new ClarionMetrics();
    const kind = f.kind('abandoned');
    await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    await f.queue.enqueue(f.testStore.store.db, { kind, payload: null });
    // Another worker claims both and dies: its leases lapse.
    expect(await f.queue.claim({ owner: 'dead-worker', kinds: [kind], limit: 2, leaseMs: 1_000 })).toHaveLength(2);
    f.clock.advance(2_000);
    const ran: string[] = [];
    const worker = pool(metrics, { [kind]: async (job) => void ran.push(job.id) });
    await worker.start();
    try {
      await waitFor(() => ran.length === 2, 10_000, 'the rescued jobs to run again');
      // Counted once the completion is recorded, just after the handlers return.
      await eventually(async () =>
        expect(await counted(metrics, 'jobsFinished', { kind, result: 'completed' })).toBe(2),
      );
      expect(await counted(metrics, 'leaseExpiries')).toBe(2);
    } finally {
      await worker.stop();
    }
  });
});
