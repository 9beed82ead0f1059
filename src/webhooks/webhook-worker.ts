import type { Logger } from 'pino';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';
import type { Config } from '../config/load-config.ts';
import type { Clock } from '../domain/clock.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { JobHandler } from '../queue/worker-pool.ts';
import type { Store } from '../store/database.ts';
import { webhookDeliveryHandler } from './webhook-delivery-job.ts';
import { WEBHOOK_DELIVERY } from './webhook-jobs.ts';
import { startWebhookRelay, type WebhookRelay } from './webhook-relay.ts';
import { createWebhookSender } from './webhook-sender.ts';
import { allowsPrivateAddresses } from '../net/outbound-url-guard.ts';

export interface WebhookWorkerDependencies {
  store: Store;
  queue: JobQueue;
  clock: Clock;
  logger: Logger;
  config: Config;
  secretKey: Buffer;
  metrics?: ClarionMetrics | undefined;
}

/** The webhook job handler for the worker pool (src/worker.ts), configured from the options. */
export function webhookHandlers(deps: WebhookWorkerDependencies): Record<string, JobHandler> {
  const sender = createWebhookSender({
    allowPrivate: allowsPrivateAddresses(deps.config),
    timeoutMs: deps.config.webhookTimeout,
  });
  return {
    [WEBHOOK_DELIVERY]: webhookDeliveryHandler({ ...deps, schedule: deps.config.webhookRetrySchedule, sender }),
  };
}

/** The events → messages relay loop of a worker process, polling as often as the queue does. */
export function startWebhookRelayLoop(deps: WebhookWorkerDependencies): WebhookRelay {
  return startWebhookRelay({
    ...deps,
    schedule: deps.config.webhookRetrySchedule,
    intervalMs: deps.config.queuePollInterval,
  });
}
