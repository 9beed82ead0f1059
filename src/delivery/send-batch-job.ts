import type { Kysely } from 'kysely';
import type { JobRow } from '../queue/job-types.ts';
import { retryDelayMs } from '../queue/retry-policy.ts';
import type { JobHandler } from '../queue/worker-pool.ts';
import { recordBatchOutcomes } from '../store/deliveries-store.ts';
import { recordEvent } from '../store/events-store.ts';
import type { NotificationRow } from '../store/notifications-store.ts';
import type { Database } from '../store/schema.ts';
import { markDelivered, rememberApnsEnvironments, unsubscribeSubscriber, type Subscriber } from '../store/subscribers-store.ts';
import { settleBatch, type BatchSettlement } from './batch-outcomes.ts';
import { sendEach } from './batch-send.ts';
import { givenUpOutcomes, isLastAttempt, LeaseLostError, settleSentBatch, SettleBacklog, type RecordedOutcomes } from './batch-settle.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import { MAX_SEND_ROUNDS, sendBatchJob, type SendBatchPayload } from './job-kinds.ts';
import { completeNotificationIfDone } from './notification-completion.ts';
import { isCredentialFailure } from './credential-failure.ts';
import { appIdOfChannel, markAppCredentialsFailing } from '../store/apps-store.ts';
import type { SendDependencies } from './channel-providers.ts';
import { pushContentOf } from './push-content.ts';
import { isPushExpired, pushExpiresAt } from './push-expiry.ts';

/**
 * Fan-out, step two: sends one batch of tokens of one platform with as many concurrent streams as the provider
 * client allows, then settles every token in ONE transaction that also completes the job: delivered and failed
 * counts, per-subscriber failures, dead tokens unsubscribed (with their events), `delivery.failed`, a follow-up
 * job for the tokens the provider asked to retry, and the notification's final status. A crash before that
 * transaction repeats this batch only; a failure of that transaction does not (batch-settle.ts). A batch past its
 * expiry (push-expiry.ts) sends nothing and fails as `expired`. The last attempt of a job that keeps failing settles
 * what it has and fails the rest as `attempts_exhausted`, so the notification still ends `sent` or `failed`.
 */
export function sendBatchHandler(deps: SendDependencies): JobHandler {
  const backlog = new SettleBacklog();
  return sendBatchJob.handler(async (payload, job, { owner }) => {
    const notification = await deps.store.db.selectFrom('notifications').selectAll().where('id', '=', payload.notificationId).executeTakeFirst();
    // A partly canceled local-time notification (status canceled) still finishes the zones already dispatched.
    if (!notification || (notification.status !== 'sending' && notification.status !== 'canceled')) return;
    const batch: Batch = { deps, backlog, payload, job, owner, notification, appId: await appOfChannel(deps, notification.channel_id) };
    try {
      await sendAndSettle(batch);
    } catch (error) {
      if (!isLastAttempt(job) || error instanceof LeaseLostError) throw error;
      deps.logger.error({ err: error, jobId: job.id, notificationId: notification.id }, 'send job failed its last attempt; settling what it has, the rest fails as attempts_exhausted');
      const outcomes = givenUpOutcomes(payload.subscriberIds, payload.sent ?? backlog.recall(job.id));
      const sentAt = deps.clock.now();
      await settle(batch, await subscribersOf(batch), settleBatch(outcomes, { round: MAX_SEND_ROUNDS }), () => ({ sentAt, outcomes: Object.fromEntries(outcomes) }));
    }
  });
}

/** The app whose credentials deliver the channel (docs/apps.md); null: the built-in one, also without a registry. */
function appOfChannel(deps: SendDependencies, channelId: string): Promise<string | null> {
  return deps.providersFor ? appIdOfChannel(deps.store.db, channelId) : Promise.resolve(null);
}

interface Batch {
  deps: SendDependencies;
  /** The channel's app, or null for the built-in providers. */
  appId: string | null;
  backlog: SettleBacklog;
  payload: SendBatchPayload;
  job: JobRow;
  owner: string;
  notification: NotificationRow;
}

async function sendAndSettle(batch: Batch): Promise<void> {
  const { deps, payload, notification } = batch;
  const byId = await subscribersOf(batch);
  // Sent already, but settling it failed: settle those answers, never send again (batch-settle.ts).
  const kept = payload.sent ?? batch.backlog.recall(batch.job.id);
  let outcomes: Map<string, DeliveryOutcome>;
  let recorded: () => RecordedOutcomes;
  if (kept) {
    outcomes = new Map(Object.entries(kept.outcomes));
    recorded = () => kept;
  } else {
    const sentAt = deps.clock.now();
    const dueAt = notification.send_at ?? notification.created_at;
    const expiresAt = payload.expiresAt !== undefined ? payload.expiresAt : pushExpiresAt(notification.ttl_seconds, dueAt);
    const expired = isPushExpired({ expiresAt, ttlSeconds: notification.ttl_seconds, round: payload.round, now: sentAt });
    const content = pushContentOf(notification, expiresAt);
    const providers = deps.providersFor ? await deps.providersFor(batch.appId) : deps.providers;
    const sender = providers[payload.platform];
    const context = { channelCode: notification.channel_code };
    const sent = await sendEach(payload.subscriberIds, (id): Promise<DeliveryOutcome> => {
      const subscriber = byId.get(id);
      if (!subscriber || subscriber.status !== 'active') return Promise.resolve({ kind: 'rejected', reason: LEFT_SINCE_DISPATCH });
      if (expired) return Promise.resolve({ kind: 'rejected', reason: 'expired' });
      return sender.send(subscriber.token, content, { ...context, apnsEnvironment: subscriber.apns_environment });
    });
    outcomes = sent;
    recorded = () => ({ sentAt, outcomes: Object.fromEntries(sent) });
  }
  // APNs 410 carries when the token was last known invalid: a device that registered it again since then keeps its subscription.
  const settlement = settleBatch(outcomes, { round: payload.round, registeredAt: (id) => byId.get(id)?.updated_at ?? null });
  if (settlement.fatal) {
    deps.logger.error(
      { notificationId: notification.id, platform: payload.platform, reason: settlement.fatal.reason, fix: settlement.fatal.fix },
      `${payload.platform} push failed for the whole batch: ${settlement.fatal.fix}`,
    );
  }
  await settle(batch, byId, settlement, recorded);
}

/**
 * The outcome of a subscriber that unsubscribed or was removed (DELETE /users/{externalId}) after the dispatch paged
 * it: no push goes out, and it counts as skipped, not failed (recipients = delivered + failed + skipped + pending).
 */
const LEFT_SINCE_DISPATCH = 'unsubscribed';

/** What a batch needs of each subscriber: where to push, whether it still may, and what an unsubscribe records. */
type BatchSubscriber = Pick<Subscriber, 'id' | 'account_id' | 'platform' | 'token' | 'status' | 'updated_at' | 'apns_environment'>;

/** One SELECT for the whole batch (500 ids), only the columns the batch uses. */
async function subscribersOf(batch: Batch): Promise<Map<string, BatchSubscriber>> {
  const subscribers = await batch.deps.store.db
    .selectFrom('subscribers')
    .select(['id', 'account_id', 'platform', 'token', 'status', 'updated_at', 'apns_environment'])
    .where('id', 'in', batch.payload.subscriberIds)
    .execute();
  return new Map(subscribers.map((subscriber) => [subscriber.id, subscriber]));
}

/** The one transaction of the batch, committed by settleSentBatch (retried, and the answers kept when it cannot). */
async function settle(batch: Batch, byId: Map<string, BatchSubscriber>, settled: BatchSettlement, recorded: () => RecordedOutcomes): Promise<void> {
  const { deps, payload, job, owner, notification } = batch;
  const write = async (trx: Kysely<Database>) => {
    const now = deps.clock.now();
    if (!(await deps.queue.complete(trx, job, owner))) throw new LeaseLostError();
    const failures = settled.failed.filter(({ reason }) => reason !== LEFT_SINCE_DISPATCH).map(({ id, reason }) => ({ subscriberId: id, platform: payload.platform, reason }));
    const skipped = settled.failed.length - failures.length;
    await recordBatchOutcomes(trx, { notificationId: notification.id, delivered: new Map([[payload.platform, settled.delivered.length]]), failures, skipped, now });
    await rememberApnsEnvironments(trx, settled.learned);
    await markDelivered(trx, settled.delivered, now);
    if (settled.fatal && batch.appId && isCredentialFailure(settled.fatal.reason)) {
      await markCredentialsFailing(trx, { accountId: notification.account_id, appId: batch.appId, platform: payload.platform, reason: settled.fatal.reason, fix: settled.fatal.fix, now });
    }
    for (const dead of settled.dead) {
      const subscriber = byId.get(dead.id);
      if (subscriber) await unsubscribeSubscriber(trx, { subscriber, channelCode: notification.channel_code, reason: dead.reason, now });
    }
    if (failures.length > 0) {
      await recordEvent(trx, {
        accountId: notification.account_id,
        type: 'delivery.failed',
        data: { notificationId: notification.id, channelCode: notification.channel_code, failures },
        now,
      });
    }
    if (settled.retry.length > 0) {
      const { sent: _sent, ...rest } = payload;
      const next: SendBatchPayload = { ...rest, subscriberIds: settled.retry, round: payload.round + 1 };
      await sendBatchJob.enqueue(deps.queue, trx, next, {
        runAt: now + retryDelayMs(next.round, Math.random, settled.retryAfterMs),
        uniqueKey: `send:${notification.id}:${payload.platform}:${settled.retry[0]}:${next.round}`,
      });
    }
    await completeNotificationIfDone(trx, notification.id, now);
  };
  await settleSentBatch({ ...deps, job, owner, definition: sendBatchJob, payload, recorded, backlog: batch.backlog, write });
}

/**
 * A provider refused the app's credentials: the app shows it (GET /apps/{id}, the dashboard) and, once per failure
 * (not once per batch), the account gets `app.credentials_failed` with what the provider said and how to fix it.
 */
async function markCredentialsFailing(
  trx: Kysely<Database>,
  input: { accountId: string; appId: string; platform: string; reason: string; fix: string; now: number },
): Promise<void> {
  if (!(await markAppCredentialsFailing(trx, { appId: input.appId, error: input.reason, now: input.now }))) return;
  await recordEvent(trx, {
    accountId: input.accountId,
    type: 'app.credentials_failed',
    data: { appId: input.appId, platform: input.platform, reason: input.reason, fix: input.fix },
    now: input.now,
  });
}
