import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Config } from './config/load-config.ts';
import type { RemoteMetrics } from './metrics/clarion-metrics.ts';
import type { VapidKeys } from './delivery/web-push/vapid-keys.ts';

export type WorkerThreadMessage =
  | { type: 'started' }
  | { type: 'wake' }
  | { type: 'stop'; graceMs: number }
  | { type: 'stopped' }
  /** Asks the thread for its metrics (src/metrics/), answered with 'metrics-answer' and the same id. */
  | { type: 'metrics'; id: number }
  | { type: 'metrics-answer'; id: number; metrics: Awaited<ReturnType<RemoteMetrics>> };

export interface WorkerThread {
  /** Tells the worker that the API enqueued a job (the in-process wake-up of src/queue/job-queue.ts, across threads). */
  wake(): void;
  /** The worker's metrics (jobs, pushes, webhook deliveries, HTTP/2 pools) as prom-client JSON, for the main thread's scrape. */
  metrics: RemoteMetrics;
  stop(graceMs: number): Promise<void>;
}

/** A scrape that the thread does not answer in this long (it is stopping, or stuck) gets the main thread's metrics alone. */
const METRICS_ANSWER_MS = 2_000;

/**
 * The thread runs what this process runs (bin/entry-point.js): compiled, this module is dist/worker-thread.js and
 * the entry beside it is plain JavaScript; from the sources, bin/worker-thread.js registers tsx in the thread first.
 */
function threadEntry(): URL {
  return import.meta.url.endsWith('.js')
    ? new URL('./worker-thread-entry.js', import.meta.url)
    : new URL('../bin/worker-thread.js', import.meta.url);
}

/**
 * The delivery worker on a thread of its own, for `clarion serve` running both roles in one process
 * (CLARION_WORKER_THREAD=true): the API keeps an event loop to itself, so a big fan-out does not queue accepted
 * requests behind send batches. Measured on a quiet 2-core machine with requests arriving at an even rate
 * (docs/performance.md, "The worker thread", bench/accept-delivery.ts): beside a 100,000-subscriber fan-out, accept p99 11–17 ms
 * with the thread against 64–84 ms on one loop (SQLite, 100–500 req/s), 19–27 ms against 67–71 ms on PostgreSQL
 * (100 req/s); on one loop `/healthz` was as slow as the accepts, so what the thread removes is the worker's own work
 * (HTTP/2 answers and request starts, GC, SQLite) holding the API's loop. Off by default all the same, for what it
 * costs: 1.4 s to ready against 0.9 s and 187 against 135 MiB idle (compiled), and on SQLite the worker
 * falls behind sooner under many small notifications (500 a second: first-push p99 0.4–1.4 s against 66 ms on one
 * loop). A thread rather than a second process keeps `clarion serve` one process to run, stop and watch. It has its
 * own database connection: on SQLite the two connections hand the write lock over through shared turns
 * (src/store/sqlite/sqlite-write-turns.ts, `sqliteWriteTurns`), and a claim woken by 'wake' waits for the enqueueing
 * transaction to commit.
 */
export async function startWorkerThread(
  config: Config,
  vapidKeys: VapidKeys | null,
  sqliteWriteTurns?: SharedArrayBuffer,
): Promise<WorkerThread> {
  const thread = new Worker(threadEntry(), { workerData: { config, vapidKeys, sqliteWriteTurns } });
  const messages = (type: WorkerThreadMessage['type']) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (message: WorkerThreadMessage) => {
        if (message.type !== type) return;
        thread.off('message', onMessage);
        thread.off('error', reject);
        resolve();
      };
      thread.on('message', onMessage);
      thread.once('error', reject);
    });
  await messages('started');
  let stopped = false;
  let nextMetricsId = 0;
  return {
    wake() {
      if (!stopped) thread.postMessage({ type: 'wake' } satisfies WorkerThreadMessage);
    },
    metrics() {
      if (stopped) return Promise.resolve([]);
      const id = (nextMetricsId += 1);
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish([]), METRICS_ANSWER_MS);
        const onMessage = (message: WorkerThreadMessage) => {
          if (message.type === 'metrics-answer' && message.id === id) finish(message.metrics);
        };
        const finish = (metrics: Awaited<ReturnType<RemoteMetrics>>) => {
          clearTimeout(timer);
          thread.off('message', onMessage);
          resolve(metrics);
        };
        thread.on('message', onMessage);
        thread.postMessage({ type: 'metrics', id } satisfies WorkerThreadMessage);
      });
    },
    async stop(graceMs) {
      if (stopped) return;
      stopped = true;
      const exited = once(thread, 'exit');
      thread.postMessage({ type: 'stop', graceMs } satisfies WorkerThreadMessage);
      await messages('stopped');
      await thread.terminate();
      await exited;
    },
  };
}
