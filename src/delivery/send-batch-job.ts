import type { Platform } from '../domain/device-token.ts';
import { retryDelayMs } from '../queue/retry-policy.ts';
import type { JobHandler } from '../queue/worker-pool.ts';
import { recordBatchOutcomes, type FailedDelivery } from '../store/deliveries-store.ts';
import { recordEvent } from '../store/events-store.ts';
import { withConflictRetry } from '../store/store-errors.ts';
import { unsubscribeSubscriber, type Subscriber } from '../store/subscribers-store.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import type { DeliveryDependencies } from './dispatch-job.ts';
import { MAX_SEND_ROUNDS, SEND_BATCH, type SendBatchPayload } from './job-kinds.ts';
import { completeNotificationIfDone } from './notification-completion.ts';
import { pushContentOf } from './push-content.ts';
import type { PushProviders } from './push-sender.ts';

/**
 * Fan-out, step two: sends one batch of tokens of one platform with as many concurrent streams as the provider
 * client allows, then settles every token in ONE transaction that also completes the job: delivered and failed
 * counts, per-subscriber failures, dead tokens unsubscribed (with their events), `delivery.failed`, a follow-up
 * job for the tokens the provider asked to retry, and the notification's final status. A crash before that
 * transaction repeats this batch only.
 */
export function sendBatchHandler(deps: DeliveryDependencies & { providers: PushProviders }): JobHandler {
  return async (job, { owner }) => {
    const payload = JSON.parse(job.payload) as SendBatchPayload;
    const { db } = deps.store;
    const notification = await db.selectFrom('notifications').selectAll().where('id', '=', payload.notificationId).executeTakeFirst();
    // A partly canceled local-time notification (status canceled) still finishes the zones already dispatched.
    if (!notification || (notification.status !== 'sending' && notification.status !== 'canceled')) return;
    const subscribers = await db.selectFrom('subscribers').selectAll().where('id', 'in', payload.subscriberIds).execute();
    const byId = new Map(subscribers.map((subscriber) => [subscriber.id, subscriber]));
    const content = pushContentOf(notification);
    const sender = deps.providers[payload.platform];

    const outcomes = new Map<string, DeliveryOutcome>();
    await Promise.all(
      payload.subscriberIds.map(async (id) => {
        const subscriber = byId.get(id);
        if (!subscriber || subscriber.status !== 'active') {
          outcomes.set(id, { kind: 'rejected', reason: 'unsubscribed' });
          return;
        }
        try {
          outcomes.set(id, await sender.send(subscriber.token, content, { channelCode: notification.channel_code }));
        } catch (error) {
          outcomes.set(id, { kind: 'retry', reason: `network: ${(error as Error).message}`, retryAfterMs: null });
        }
      }),
    );

    guardAgainstMisconfiguration(outcomes);
    const fatal = [...outcomes.values()].find((outcome) => outcome.kind === 'fatal');
    if (fatal?.kind === 'fatal') {
      deps.logger.error({ notificationId: notification.id, platform: payload.platform, reason: fatal.reason, fix: fatal.fix }, `${payload.platform} push failed for the whole batch: ${fatal.fix}`);
    }
    const settled = settle(payload, outcomes, byId);

    // The pushes are out: a deadlock abort must not make the job repeat them, so the transaction is retried instead.
    await withConflictRetry(() => db.transaction().execute(async (trx) => {
      const now = deps.clock.now();
      if (!(await deps.queue.complete(trx, job, owner))) throw new Error('lease lost: another worker runs this batch now');
      await recordBatchOutcomes(trx, { notificationId: notification.id, delivered: new Map([[payload.platform as Platform, settled.delivered]]), failures: settled.failures, now });
      for (const dead of settled.dead) {
        await unsubscribeSubscriber(trx, { subscriber: dead.subscriber, channelCode: notification.channel_code, reason: dead.reason, now });
      }
      if (settled.failures.length > 0) {
        await recordEvent(trx, {
          accountId: notification.account_id,
          type: 'delivery.failed',
          data: { notificationId: notification.id, channelCode: notification.channel_code, failures: settled.failures },
          now,
        });
      }
      if (settled.retry.length > 0) {
        const next: SendBatchPayload = { ...payload, subscriberIds: settled.retry, round: payload.round + 1 };
        await deps.queue.enqueue(trx, {
          kind: SEND_BATCH,
          payload: next,
          runAt: now + retryDelayMs(next.round, Math.random, settled.retryAfterMs),
          uniqueKey: `send:${notification.id}:${payload.platform}:${settled.retry[0]}:${next.round}`,
        });
      }
      await completeNotificationIfDone(trx, notification.id, now);
    }));
  };
}

/**
 * Three provider answers unsubscribe a token but also mean a misconfiguration when EVERY token gets them: APNs
 * BadDeviceToken (also a sandbox token sent to production, or the reverse) and DeviceTokenNotForTopic (wrong
 * CLARION_APNS_TOPIC), and FCM SENDER_ID_MISMATCH (the service account of another project). A whole batch of at
 * least MISCONFIGURATION_MIN_BATCH tokens answering the same one is treated as our configuration, not the
 * devices: the batch fails loudly and nobody is unsubscribed.
 */
const MISCONFIGURATION_REASONS: Record<string, string> = {
  BadDeviceToken: 'check that CLARION_APNS_URL matches the tokens: sandbox (development builds) or production',
  DeviceTokenNotForTopic: "check CLARION_APNS_TOPIC: it must be the app's bundle id",
  SENDER_ID_MISMATCH: 'check CLARION_FCM_SERVICE_ACCOUNT_FILE: it must belong to the Firebase project the app registers with',
};
export const MISCONFIGURATION_MIN_BATCH = 10;

export function guardAgainstMisconfiguration(outcomes: Map<string, DeliveryOutcome>): void {
  if (outcomes.size < MISCONFIGURATION_MIN_BATCH) return;
  const reasons = new Set([...outcomes.values()].map((outcome) => (outcome.kind === 'token_dead' ? outcome.providerReason : null)));
  const [only] = reasons;
  if (reasons.size !== 1 || only === null || only === undefined) return;
  const fix = MISCONFIGURATION_REASONS[only.replace(/^(apns|fcm):/, '')];
  if (!fix) return;
  for (const id of outcomes.keys()) outcomes.set(id, { kind: 'fatal', reason: `provider_configuration:${only}`, fix });
}

interface Settled {
  delivered: number;
  failures: FailedDelivery[];
  dead: Array<{ subscriber: Subscriber; reason: 'token_unregistered' | 'token_invalid' }>;
  retry: string[];
  retryAfterMs: number | null;
}

/** Turns per-token outcomes into what the transaction writes. A fatal outcome fails every push not delivered. */
function settle(payload: SendBatchPayload, outcomes: Map<string, DeliveryOutcome>, byId: Map<string, Subscriber>): Settled {
  const fatal = [...outcomes.values()].find((outcome) => outcome.kind === 'fatal');
  const result: Settled = { delivered: 0, failures: [], dead: [], retry: [], retryAfterMs: null };
  const fail = (subscriberId: string, reason: string) => result.failures.push({ subscriberId, platform: payload.platform, reason });
  for (const [id, outcome] of outcomes) {
    if (outcome.kind === 'delivered') {
      result.delivered += 1;
    } else if (fatal?.kind === 'fatal') {
      fail(id, fatal.reason);
    } else if (outcome.kind === 'token_dead') {
      fail(id, outcome.reason);
      result.dead.push({ subscriber: byId.get(id)!, reason: outcome.reason });
    } else if (outcome.kind === 'retry') {
      if (payload.round + 1 >= MAX_SEND_ROUNDS) fail(id, 'retry_exhausted');
      else {
        result.retry.push(id);
        if (outcome.retryAfterMs !== null) result.retryAfterMs = Math.max(result.retryAfterMs ?? 0, outcome.retryAfterMs);
      }
    } else if (outcome.kind === 'rejected') {
      fail(id, outcome.reason);
    }
  }
  return result;
}
