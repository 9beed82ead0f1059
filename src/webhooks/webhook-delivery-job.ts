import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';
import { openSecret } from '../domain/secret-box.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { JobHandler } from '../queue/worker-pool.ts';
import type { Store } from '../store/database.ts';
import type { Database } from '../store/schema.ts';
import { withConflictRetry } from '../store/store-errors.ts';
import {
  findWebhookMessageById,
  markManualAttemptFailed,
  markMessageDelivered,
  markMessageFailed,
  markMessageRetrying,
  recordWebhookAttempt,
  type WebhookMessage,
} from '../store/webhook-messages-queries.ts';
import {
  disableWebhookEndpoint,
  findWebhookEndpointById,
  recordEndpointOutcome,
  type WebhookEndpoint,
} from '../store/webhooks-queries.ts';
import { enqueueWebhookAttempt, webhookDeliveryJob, type WebhookDeliveryPayload } from './webhook-jobs.ts';
import { isSuccessStatus, judgeAttempt } from './webhook-retry-policy.ts';
import type { WebhookSender, WebhookSendResult } from './webhook-sender.ts';
import { webhookHeaders } from './webhook-signature.ts';

export interface WebhookDeliveryDependencies {
  store: Store;
  queue: JobQueue;
  clock: Clock;
  logger: Logger;
  /** The instance key that opens sealed webhook secrets. */
  secretKey: Buffer;
  /** Milliseconds before each scheduled attempt (CLARION_WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  sender: WebhookSender;
  /** Counts attempts by outcome once their transaction committed (`clarion_webhook_deliveries_total`). */
  metrics?: ClarionMetrics | undefined;
}

/**
 * One delivery attempt of one message (a `webhook.deliver` job): sign, send, then in ONE transaction complete the
 * job, log the attempt, settle the message (delivered / next attempt queued / failed) and update the endpoint's
 * failure streak (410 or 5 failing days disable it). A crash before that commit leaves the job to the rescuer, which
 * runs the attempt again with the same webhook-id: receivers dedupe on it (at-least-once, like every webhook sender).
 */
export function webhookDeliveryHandler(deps: WebhookDeliveryDependencies): JobHandler {
  return webhookDeliveryJob.handler(async (payload, job, { owner, signal }) => {
    const { db } = deps.store;
    const message = await findWebhookMessageById(db, payload.messageId);
    // Gone with its endpoint (deleted), or a scheduled attempt made moot by a successful replay.
    if (!message) return;
    if (payload.attempt !== null && (message.status !== 'pending' || message.next_attempt_at === null)) return;
    const endpoint = await findWebhookEndpointById(db, message.endpoint_id);
    if (!endpoint) return;

    if (endpoint.status !== 'enabled') {
      // Disabled since this attempt was queued: no request; the message fails and can be replayed once re-enabled.
      await settle(deps, async (trx) => {
        if (!(await deps.queue.complete(trx, job, owner)))
          throw new Error('lease lost: another worker runs this attempt now');
        await markMessageFailed(trx, message.id, deps.clock.now());
      });
      deps.metrics?.webhookDeliveries.inc({ outcome: 'skipped' });
      return;
    }

    const now = deps.clock.now();
    const timestampSeconds = Math.floor(now / 1000);
    const headers = webhookHeaders(signingSecrets(endpoint, deps.secretKey, now), {
      messageId: message.id,
      timestampSeconds,
      body: message.payload,
    });
    const result = await deps.sender.send({ url: endpoint.url, headers, body: message.payload, signal });
    // Shutting down mid-request: hand the job back without logging; the next worker sends it again (same id).
    if (signal.aborted) throw new Error('worker shutting down during the attempt');

    // Set by the settling transaction (which may run twice after a deadlock); counted once it has committed.
    let outcome: 'delivered' | 'retry' | 'failed' | null = null;
    await settle(deps, async (trx) => {
      const at = deps.clock.now();
      if (!(await deps.queue.complete(trx, job, owner)))
        throw new Error('lease lost: another worker runs this attempt now');
      const attempt = await logAttempt(trx, message, endpoint, payload, result, now);
      outcome = null;
      if (attempt === undefined) return; // the endpoint was deleted meanwhile
      const state = await recordEndpointOutcome(trx, {
        id: endpoint.id,
        success: isSuccessStatus(result.statusCode),
        now: at,
      });
      const verdict = judgeAttempt({
        statusCode: result.statusCode,
        retryAfter: result.retryAfter,
        attempt: payload.attempt,
        schedule: deps.schedule,
        failingSince: state?.failing_since ?? null,
        now: at,
        random: Math.random,
      });
      if (
        verdict.disable !== null &&
        (await disableWebhookEndpoint(trx, { id: endpoint.id, reason: verdict.disable, now: at }))
      ) {
        deps.logger.warn(
          { webhookId: endpoint.id, accountId: endpoint.account_id, reason: verdict.disable },
          'webhook endpoint disabled',
        );
      }
      outcome =
        verdict.message === 'delivered'
          ? 'delivered'
          : verdict.message === 'retry' && payload.attempt !== null
            ? 'retry'
            : 'failed';
      if (verdict.message === 'delivered') await markMessageDelivered(trx, message.id, at);
      else if (verdict.message === 'retry' && payload.attempt !== null) {
        await markMessageRetrying(trx, message.id, verdict.retryAt!, at);
        await enqueueWebhookAttempt(deps.queue, trx, {
          messageId: message.id,
          attempt: payload.attempt + 1,
          runAt: verdict.retryAt!,
        });
      } else if (payload.attempt === null && verdict.disable === null)
        await markManualAttemptFailed(trx, message.id, at);
      else await markMessageFailed(trx, message.id, at);
    });
    if (outcome !== null) deps.metrics?.webhookDeliveries.inc({ outcome });
  });
}

/** The current secret, then the previous one while its rotation grace period lasts: both sign each attempt. */
export function signingSecrets(
  endpoint: Pick<WebhookEndpoint, 'id' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  key: Buffer,
  now: number,
): string[] {
  const secrets = [openSecret(key, endpoint.secret, endpoint.id)];
  if (
    endpoint.previous_secret !== null &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at > now
  ) {
    secrets.push(openSecret(key, endpoint.previous_secret, endpoint.id));
  }
  return secrets;
}

async function logAttempt(
  trx: Kysely<Database>,
  message: WebhookMessage,
  endpoint: WebhookEndpoint,
  payload: WebhookDeliveryPayload,
  result: WebhookSendResult,
  attemptedAt: number,
): Promise<number | undefined> {
  return recordWebhookAttempt(trx, {
    message_id: message.id,
    kind: payload.attempt === null ? 'manual' : 'scheduled',
    url: endpoint.url,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    response_excerpt: result.responseExcerpt,
    error: result.error,
    attempted_at: attemptedAt,
    now: attemptedAt,
  });
}

/** The settling transaction follows a request already sent: a deadlock abort is retried rather than resending. */
async function settle(
  deps: WebhookDeliveryDependencies,
  work: (trx: Kysely<Database>) => Promise<void>,
): Promise<void> {
  await withConflictRetry(() => deps.store.db.transaction().execute(work));
}
