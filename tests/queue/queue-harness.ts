import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.ts';
import { JobQueue } from '../../src/queue/job-queue.ts';
import { WorkerPool, type JobHandler } from '../../src/queue/worker-pool.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

export interface QueueFixture {
  testStore: TestStore;
  queue: JobQueue;
  clock: ManualClock;
  /** A kind unique to the test, so tests sharing one PostgreSQL database never claim each other's jobs. */
  kind(name: string): string;
  close(): Promise<void>;
}

let kindCounter = 0;

/**
 * A queue on the dialect under test with a manual clock and deterministic jitter (random() = 0.5); `manualTasks`: the
 * clock's periodic tasks (the worker's poll, heartbeat and rescue) run only when a test moves it.
 */
export async function openQueueFixture(clockOptions: { manualTasks?: boolean } = {}): Promise<QueueFixture> {
  const testStore = await openTestStore();
  const clock = new ManualClock(Date.now(), clockOptions);
  const queue = JobQueue.forStore(testStore.store, clock);
  const prefix = `t${process.pid}-${Date.now().toString(36)}`;
  return {
    testStore,
    queue: new JobQueue(testStore.store, queue.driver, clock, () => 0.5),
    clock,
    kind: (name) => `${prefix}-${(kindCounter += 1)}-${name}`,
    close: () => testStore.close(),
  };
}

export const silentLogger = pino({ level: 'silent' });

export function startWorker(
  fixture: QueueFixture,
  handlers: Record<string, JobHandler>,
  overrides: Partial<{ concurrency: number; leaseMs: number; pollIntervalMs: number; rescueIntervalMs: number }> = {},
) {
  const worker = new WorkerPool({
    queue: fixture.queue,
    handlers,
    concurrency: overrides.concurrency ?? 4,
    leaseMs: overrides.leaseMs ?? 30_000,
    pollIntervalMs: overrides.pollIntervalMs ?? 50,
    rescueIntervalMs: overrides.rescueIntervalMs ?? 1_000,
    logger: silentLogger,
  });
  return worker;
}

export { waitFor } from '../harness/wait-for.ts';
