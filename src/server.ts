import pino, { type Logger } from 'pino';
import type { Config } from './config/load-config.ts';
import { redactUrl } from './config/load-config.ts';
import { resolveSecretKey } from './config/secret-key.ts';
import { systemClock } from './domain/clock.ts';
import { startDeliveryWorker, type DeliveryWorker } from './worker.ts';
import { startWorkerThread, type WorkerThread } from './worker-thread.ts';
import { createPushProviders } from './delivery/push-providers.ts';
import { buildApp } from './http/app.ts';
import type { ClarionApp } from './http/app-types.ts';
import { JobQueue } from './queue/job-queue.ts';
import { openStore } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';

export interface RunningServer {
  app: ClarionApp | null;
  worker: DeliveryWorker | null;
  address: string | null;
  logger: Logger;
  /** Stops taking requests and jobs, lets in-flight ones finish (handing unfinished jobs back), closes the database. */
  close(graceMs?: number): Promise<void>;
}

export interface ServeRoles {
  api: boolean;
  worker: boolean;
}

/** Opens storage, migrates it, and starts the roles asked for. The only place that listens on a port. */
export async function startServer(config: Config, roles: ServeRoles): Promise<RunningServer> {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] });
  const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const { applied } = await migrateToLatest(store);
  logger.info(
    { dialect: store.dialect, database: config.databaseUrl ? redactUrl(config.databaseUrl) : config.dataDir, applied },
    'storage ready',
  );
  const clock = systemClock;
  const queue = JobQueue.forStore(store, clock, config.databaseUrl);

  let worker: DeliveryWorker | null = null;
  let workerThread: WorkerThread | null = null;
  let providers: Awaited<ReturnType<typeof createPushProviders>> | null = null;
  if (roles.worker && roles.api && config.workerThread) {
    workerThread = await startWorkerThread(config);
    // The queue wakes its listeners from inside the enqueueing transaction; passed on after the current turn, the
    // message finds that transaction committed, so the thread's claim does not wait on SQLite's write lock for it.
    queue.onWake(() => setImmediate(() => workerThread!.wake()));
    logger.info({ concurrency: config.workerConcurrency, leaseMs: config.jobLease, thread: true }, 'delivery worker started');
  } else if (roles.worker) {
    providers = createPushProviders(config, clock, logger);
    worker = await startDeliveryWorker({ store, queue, clock, config, logger, providers, secretKey });
    logger.info({ concurrency: config.workerConcurrency, leaseMs: config.jobLease }, 'delivery worker started');
  }
  let app: ClarionApp | null = null;
  let address: string | null = null;
  if (roles.api) {
    app = await buildApp({ store, config, clock, queue, secretKey, loggerInstance: logger });
    address = await app.listen({ port: config.port, host: config.host });
  }
  return {
    app,
    worker,
    address,
    logger,
    async close(graceMs = 8_000) {
      // The provider clients close together with the worker, not after it: they refuse new pushes and give the ones
      // in flight 2 s (http2-session-pool.ts). A send job waiting on a black-holed connection would otherwise hold
      // the worker's grace period and then its 15 s request timeout; this way it gets its answers (or
      // connection_lost, retried by a follow-up job) at once and commits its batch (issue 9 item 1).
      await Promise.all([app?.close(), worker?.stop(graceMs), workerThread?.stop(graceMs), ...(providers ? Object.values(providers).map((provider) => provider.close()) : [])]);
      await store.close();
    },
  };
}
