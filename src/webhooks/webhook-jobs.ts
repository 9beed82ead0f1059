import type { Kysely } from 'kysely';
import { defineJob } from '../queue/job-definition.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { Database } from '../store/schema.ts';

/**
 * Webhook delivery rides on the durable job queue: one job per attempt. A scheduled attempt that fails enqueues the
 * next one (run_at = now + the schedule's next delay) in the same transaction that logs it and completes its own
 * job, so the schedule is exact and survives restarts; a crash before that commit makes the queue run the attempt
 * again (same webhook-id). Job-level retries (with the queue's backoff) only cover infrastructure failures.
 */
export interface WebhookDeliveryPayload {
  messageId: string;
  /** 1-based position in the retry schedule; null for a manual replay (one attempt, outside the schedule). */
  attempt: number | null;
}

export const webhookDeliveryJob = defineJob<WebhookDeliveryPayload>('webhook.deliver');
export const WEBHOOK_DELIVERY = webhookDeliveryJob.kind;

/**
 * Enqueues one attempt in the caller's transaction. A first attempt is enqueued by the transaction that inserts its
 * message (itself unique per event and endpoint), so needs no more; later scheduled attempts carry a unique key, so
 * the same attempt of a message is never queued twice; manual replays may be repeated at will.
 */
export async function enqueueWebhookAttempt(
  queue: JobQueue,
  db: Kysely<Database>,
  input: WebhookDeliveryPayload & { runAt: number },
): Promise<void> {
  const payload: WebhookDeliveryPayload = { messageId: input.messageId, attempt: input.attempt };
  await webhookDeliveryJob.enqueue(queue, db, payload, {
    runAt: input.runAt,
    ...(input.attempt !== null && input.attempt > 1
      ? { uniqueKey: `webhook:${input.messageId}:${input.attempt}` }
      : {}),
  });
}
