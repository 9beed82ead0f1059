import { receiptKey } from './domain/receipt.ts';
import { pruneReceipts } from './store/receipts-queries.ts';
import type { Logger } from 'pino';
import type { Config } from './config/load-config.ts';
import type { Clock } from './domain/clock.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { WorkerPool } from './queue/worker-pool.ts';
import type { Store } from './store/database.ts';
import { dispatchNotificationHandler } from './delivery/dispatch-job.ts';
import { DISPATCH_NOTIFICATION, SEND_BATCH } from './delivery/job-kinds.ts';
import { SWEEP_INTERVAL_MS } from './delivery/live-activities/live-activity-channel-jobs.ts';
import { liveActivityHandlers } from './delivery/live-activities/live-activity-handlers.ts';
import { widgetHandlers } from './delivery/widgets/widget-handlers.ts';
import { sweepLiveActivityChannelsJob } from './delivery/live-activities/live-activity-jobs.ts';
import type { PushProviders } from './delivery/push-sender.ts';
import type { ApnsProviderTokens } from './delivery/apns/apns-provider-token.ts';
import type { ClarionMetrics } from './metrics/clarion-metrics.ts';
import { instrumentProviders, pushInstrumentation } from './delivery/push-metrics.ts';
import { createProviderClientRegistry, type ProviderClientRegistry } from './delivery/provider-client-registry.ts';
import { sendBatchHandler } from './delivery/send-batch-job.ts';
import { startWebhookRelayLoop, webhookHandlers } from './webhooks/webhook-worker.ts';

/** Finished jobs are kept a week for inspection, then deleted hourly so the table stays small. */
const FINISHED_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const CLEAN_INTERVAL_MS = 60 * 60 * 1000;

export interface DeliveryWorker {
  pool: WorkerPool;
  /** Each app's provider clients; the API of the same process tests credentials with them (src/server.ts). */
  providerClients: ProviderClientRegistry;
  stop(graceMs?: number): Promise<void>;
}

/**
 * The worker role of `clarion serve`: the delivery, Live Activity and webhook job handlers on one worker pool, the
 * webhook relay loop, and the job cleaner. It lives beside server.ts (not in delivery/) because it wires several
 * top-level folders together; keeping the wiring here is what keeps delivery/ and webhooks/ free of each other.
 */
export interface DeliveryWorkerDependencies {
  store: Store;
  queue: JobQueue;
  clock: Clock;
  config: Config;
  logger: Logger;
  providers: PushProviders;
  secretKey: Buffer;
  /** Where the worker counts jobs, pushes and webhook deliveries (src/metrics/); none when nobody scrapes (tests). */
  metrics?: ClarionMetrics;
  /** The process's APNs provider tokens, also given to `providers` (built-in-app.ts); default: the worker's own. */
  providerTokens?: ApnsProviderTokens;
}

export async function startDeliveryWorker(deps: DeliveryWorkerDependencies): Promise<DeliveryWorker> {
  const delivery = { store: deps.store, queue: deps.queue, clock: deps.clock, logger: deps.logger };
  const { metrics } = deps;
  // One tally for the built-in senders and every app's (their HTTP/2 gauges are the built-in clients' only).
  const instrument = metrics ? pushInstrumentation(metrics) : undefined;
  const providers = metrics ? instrumentProviders(deps.providers, metrics, instrument) : deps.providers;
  // The instance key that opens webhook secrets; server.ts resolves it once for both roles.
  const { secretKey } = deps;
  // Each app's own provider clients (docs/apps.md); channels without an app use `deps.providers`.
  const receipts = receiptKey(secretKey);
  const registry = createProviderClientRegistry({
    store: deps.store,
    config: deps.config,
    clock: deps.clock,
    logger: deps.logger,
    secretKey,
    builtIn: providers,
    instrument,
    ...(deps.providerTokens ? { providerTokens: deps.providerTokens } : {}),
  });
  const pool = new WorkerPool({
    queue: deps.queue,
    handlers: {
      [DISPATCH_NOTIFICATION]: dispatchNotificationHandler(delivery),
      [SEND_BATCH]: sendBatchHandler({
        ...delivery,
        providers,
        providersFor: registry.providersFor,
        receiptKey: receipts,
      }),
      ...liveActivityHandlers(
        { ...delivery, providers, providersFor: registry.providersFor, receiptKey: receipts },
        { deleteUnknownChannels: deps.config.apnsDeleteUnknownChannels },
      ),
      ...widgetHandlers({ ...delivery, providers, providersFor: registry.providersFor, receiptKey: receipts }),
      ...webhookHandlers({ ...delivery, config: deps.config, secretKey, metrics }),
    },
    concurrency: deps.config.workerConcurrency,
    leaseMs: deps.config.jobLease,
    pollIntervalMs: deps.config.queuePollInterval,
    rescueIntervalMs: Math.max(1_000, Math.floor(deps.config.jobLease / 2)),
    logger: deps.logger,
    metrics,
  });
  await pool.start();
  const webhookRelay = startWebhookRelayLoop({ ...delivery, config: deps.config, secretKey });
  const cleaner = setInterval(() => {
    deps.queue
      .deleteFinished(FINISHED_JOB_RETENTION_MS)
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'job cleaner failed'));
    // Receipts past their retention (docs/engagement.md, "Privacy"); every worker may run it, deleting is idempotent.
    pruneReceipts(deps.store.db, deps.clock.now(), deps.config.receiptRetention).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'pruning old receipts failed'),
    );
  }, CLEAN_INTERVAL_MS);
  cleaner.unref();
  // One sweep per interval across every worker: the slot number makes the job's unique key.
  const channelSweeper = setInterval(() => {
    const slot = Math.floor(deps.clock.now() / SWEEP_INTERVAL_MS);
    sweepLiveActivityChannelsJob
      .enqueue(deps.queue, deps.store.db, {}, { uniqueKey: `live_activity.sweep_channels:${slot}` })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'scheduling the APNs channel sweep failed'));
  }, SWEEP_INTERVAL_MS);
  channelSweeper.unref();
  return {
    pool,
    providerClients: registry,
    async stop(graceMs) {
      clearInterval(cleaner);
      clearInterval(channelSweeper);
      await webhookRelay.stop();
      await pool.stop(graceMs);
      await registry.close();
    },
  };
}
