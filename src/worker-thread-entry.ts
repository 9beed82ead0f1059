import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { Config } from './config/load-config.ts';
import { resolveSecretKey } from './config/secret-key.ts';
import { createPushProviders } from './delivery/built-in-app.ts';
import { createApnsProviderTokens } from './delivery/apns/apns-provider-token.ts';
import type { VapidKeys } from './delivery/web-push/vapid-keys.ts';
import { systemClock } from './domain/clock.ts';
import { ClarionMetrics } from './metrics/clarion-metrics.ts';
import { JobQueue } from './queue/job-queue.ts';
import { openStore } from './store/database.ts';
import type { WorkerThreadMessage } from './worker-thread.ts';
import { startDeliveryWorker } from './worker.ts';

/**
 * The delivery worker inside its thread (src/worker-thread.ts): its own database connection (pool), queue, provider
 * clients and event loop. The main thread has already migrated the database. Messages: 'wake' (a job was enqueued
 * by the API in this process), 'stop' (answered with 'stopped' once jobs are handed back and everything is closed).
 */
const { config, vapidKeys, sqliteWriteTurns } = workerData as {
  config: Config;
  vapidKeys: VapidKeys | null;
  sqliteWriteTurns: SharedArrayBuffer | undefined;
};
const port = parentPort!;
// Written straight to fd 1, as the main thread's logger does, rather than relayed through the main thread.
const logger = pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: true })).child({ thread: 'worker' });
const store = openStore({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  sqliteWriteTurns,
  logger,
});
const queue = JobQueue.forStore(store, systemClock);
// The thread's APNs provider tokens, one per key for its built-in and app clients (the main thread has its own).
const providerTokens = createApnsProviderTokens(systemClock);
const providers = createPushProviders(config, systemClock, logger, vapidKeys, providerTokens);
// The worker's own counters; the main thread adds them to its scrape ('metrics' messages). No process metrics and no
// queue gauges here: the main thread reports those once for the whole process.
const metrics = new ClarionMetrics();
const worker = await startDeliveryWorker({
  store,
  queue,
  clock: systemClock,
  config,
  logger,
  providers,
  secretKey: resolveSecretKey(config.secretKey, config.dataDir),
  metrics,
  providerTokens,
});

port.on('message', (message: WorkerThreadMessage) => {
  if (message.type === 'wake') worker.pool.wake();
  else if (message.type === 'metrics') {
    void metrics.registry
      .getMetricsAsJSON()
      .then((json) =>
        port.postMessage({ type: 'metrics-answer', id: message.id, metrics: json } satisfies WorkerThreadMessage),
      );
  } else if (message.type === 'stop') {
    void (async () => {
      await Promise.all([
        worker.stop(message.graceMs),
        ...Object.values(providers).map((provider) => provider.close()),
      ]);
      await store.close();
      port.postMessage({ type: 'stopped' } satisfies WorkerThreadMessage);
    })();
  }
});
port.postMessage({ type: 'started' } satisfies WorkerThreadMessage);
