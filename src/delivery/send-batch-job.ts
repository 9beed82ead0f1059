import { mintReceipt } from '../domain/receipt.ts';
import type { Kysely } from 'kysely';
import type { JobRow } from '../queue/job-types.ts';
import { COMPLETED_BY_HANDLER, type JobHandler } from '../queue/worker-pool.ts';
import { recordBatchOutcomes } from '../store/deliveries-queries.ts';
import { recordEvent } from '../store/events-queries.ts';
import { deliveriesSince, recordCappedDeliveries } from '../store/frequency-cap-queries.ts';
import type { Database } from '../store/schema.ts';
import {
  findBatchSubscribers,
  markDelivered,
  rememberApnsEnvironments,
  subscriberPreferences,
  subscriberRegistrationTimes,
  unsubscribeSubscriber,
  type BatchSubscriber,
} from '../store/subscribers-queries.ts';
import { retryGroupDelayMs, settleBatch, type BatchSettlement } from './send-batch.ts';
import { sendEach } from './send-batch.ts';
import {
  givenUpOutcomes,
  isLastAttempt,
  LeaseLostError,
  settleSentBatch,
  SettleBacklog,
  type RecordedOutcomes,
} from './send-batch.ts';
import type { SendOutcome } from './delivery-outcome.ts';
import { MAX_SEND_ROUNDS, sendBatchJob, type SendBatchPayload } from './job-kinds.ts';
import { completeNotificationIfDone } from './notification-completion.ts';
import { isCredentialFailure } from './credential-failure.ts';
import { appIdOfChannel, markAppCredentialsFailing } from '../store/apps-queries.ts';
import type { SendDependencies } from './channel-providers.ts';
import { localizedContent, pushContentOf, type PushContent } from './push-content.ts';
import type { Platform } from '../domain/device-token.ts';
import { subscriptionOrigin } from './web-push/web-push-subscription.ts';
import type { PushContext } from './push-sender.ts';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import { isPushExpired, pushExpiresAt } from './push-expiry.ts';
import { quietHoursEndAt } from '../domain/quiet-hours.ts';
import { NotificationSnapshots, type NotificationSnapshot } from './notification-snapshots.ts';

/**
 * Fan-out, step two: sends one batch of tokens of one platform with as many concurrent streams as the provider
 * client allows, then settles every token in ONE transaction that also completes the job: delivered and failed
 * counts, per-subscriber failures, dead tokens unsubscribed (with their events), `delivery.failed`, a follow-up
 * job for the tokens the provider asked to retry, and the notification's final status. A crash before that
 * transaction repeats this batch only; a failure of that transaction does not (send-batch.ts). A batch past its
 * expiry (push-expiry.ts) sends nothing and fails as `expired`. The last attempt of a job that keeps failing settles
 * what it has and fails the rest as `attempts_exhausted`, so the notification still ends `sent` or `failed`.
 *
 * Per batch it reads only its subscribers: the notification is read once per worker (notification-snapshots.ts) and the
 * channel's app comes in the payload from the dispatch (job-kinds.ts).
 */
export function sendBatchHandler(deps: SendDependencies): JobHandler {
  const backlog = new SettleBacklog();
  const notifications = new NotificationSnapshots();
  return sendBatchJob.handler(async (payload, job, { owner, progressed }) => {
    // A partly canceled local-time notification (status canceled) still finishes the zones already dispatched.
    const notification = await notifications.sendable(deps.store.db, payload.notificationId);
    if (!notification) return;
    const appId = payload.appId !== undefined ? payload.appId : await appOfChannel(deps, notification.channel_id);
    const batch: Batch = {
      deps,
      backlog,
      payload,
      job,
      owner,
      notification,
      appId: deps.providersFor ? appId : null,
      progressed,
    };
    try {
      await sendAndSettle(batch);
      return COMPLETED_BY_HANDLER;
    } catch (error) {
      if (!isLastAttempt(job) || error instanceof LeaseLostError) throw error;
      deps.logger.error(
        { err: error, jobId: job.id, notificationId: notification.id },
        'send job failed its last attempt; settling what it has, the rest fails as attempts_exhausted',
      );
      const outcomes = givenUpOutcomes(payload.subscriberIds, payload.sent ?? backlog.recall(job.id));
      const sentAt = deps.clock.now();
      await settle(batch, await subscribersOf(batch), settleBatch(outcomes, { round: MAX_SEND_ROUNDS }), () => ({
        sentAt,
        outcomes: Object.fromEntries(outcomes),
      }));
      return COMPLETED_BY_HANDLER;
    }
  });
}

/**
 * The app whose credentials deliver the channel (docs/apps.md); null: the built-in one, also without a registry. Only
 * for a job enqueued before the dispatch put the app in its payload.
 */
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
  notification: NotificationSnapshot;
  /** Each answered push is progress for the worker (worker-pool.ts, STALLED_AFTER_MS). */
  progressed: (() => void) | undefined;
}

async function sendAndSettle(batch: Batch): Promise<void> {
  const { deps, payload, notification } = batch;
  const byId = await subscribersOf(batch);
  // Sent already, but settling it failed: settle those answers, never send again (send-batch.ts).
  const kept = payload.sent ?? batch.backlog.recall(batch.job.id);
  let outcomes: Map<string, SendOutcome>;
  let recorded: () => RecordedOutcomes;
  if (kept) {
    outcomes = new Map(Object.entries(kept.outcomes));
    recorded = () => kept;
  } else {
    const sentAt = deps.clock.now();
    const dueAt = notification.send_at ?? notification.created_at;
    const expiresAt =
      payload.expiresAt !== undefined ? payload.expiresAt : pushExpiresAt(notification.ttl_seconds, dueAt);
    const expired = isPushExpired({
      expiresAt,
      ttlSeconds: notification.ttl_seconds,
      round: payload.round,
      now: sentAt,
    });
    const content = pushContentOf(notification, expiresAt);
    const skip = skipOfWholeBatch(content, payload.platform);
    const capped = await cappedSubscribers(batch, sentAt);
    const quiet = quietHoursRule(payload, sentAt, expiresAt);
    // Each subscriber's language and time zone: read only for localized text or quiet hours.
    const contentFor = localizedContent(content);
    const preferences =
      content.localizations !== null || quiet !== null
        ? await subscriberPreferences(deps.store.db, payload.subscriberIds)
        : new Map<string, { locale: string | null; timezone: string | null }>();
    // The app the dispatch found; if it was deleted since (possible only once the channel moved away from it), the
    // channel's app now, rather than the built-in credentials.
    const providers = deps.providersFor
      ? await deps.providersFor(batch.appId, () => appIdOfChannel(deps.store.db, notification.channel_id))
      : deps.providers;
    const sender = providers[payload.platform];
    const contexts = pushContextsOf(notification.channel_code);
    const receiptOf = payload.receipts ? (id: string) => mintReceipt(deps.receiptKey, notification.id, id) : null;
    const sent = await sendEach(
      payload.subscriberIds,
      (id): Promise<SendOutcome> => {
        const subscriber = byId.get(id);
        if (!subscriber || subscriber.status !== 'active') return Promise.resolve(LEFT_SINCE_DISPATCH);
        if (expired) return Promise.resolve(EXPIRED);
        if (skip) return Promise.resolve(skip);
        if (capped.has(id)) return Promise.resolve(FREQUENCY_CAPPED);
        const preference = preferences.get(id);
        const waiting = quiet?.(preference?.timezone ?? null);
        if (waiting) return Promise.resolve(waiting);
        return sender.send(
          subscriber.token,
          contentFor(preference?.locale ?? null),
          contexts[subscriber.apns_environment ?? 'unknown'],
          receiptOf?.(id),
        );
      },
      { onAnswer: batch.progressed },
    );
    outcomes = sent;
    recorded = () => ({ sentAt, outcomes: Object.fromEntries(sent) });
  }
  // APNs 410 carries when the token was last known invalid: a device that registered it again since then keeps its subscription.
  const registered = await registrationTimesOf(batch, outcomes);
  const settlement = settleBatch(outcomes, {
    round: payload.round,
    registeredAt: (id) => registered.get(id) ?? null,
    // Web: each push service judged alone by the misconfiguration guard (send-batch.ts).
    ...(payload.platform === 'web' ? { originOf: (id: string) => subscriptionOrigin(byId.get(id)?.token) } : {}),
  });
  if (settlement.fatal) {
    deps.logger.error(
      {
        notificationId: notification.id,
        platform: payload.platform,
        reason: settlement.fatal.reason,
        fix: settlement.fatal.fix,
      },
      `${payload.platform} push failed for the whole batch: ${settlement.fatal.fix}`,
    );
  }
  for (const { origin, reason, fix } of settlement.misconfiguredOrigins) {
    deps.logger.error(
      { notificationId: notification.id, platform: payload.platform, origin, reason, fix },
      `${payload.platform} push failed for every browser at ${origin}: ${fix}`,
    );
  }
  await settle(batch, byId, settlement, recorded);
}

/**
 * The batch's push contexts, one per APNs environment a subscriber can have, shared by its pushes: a new object per
 * push (`{ ...context, apnsEnvironment }`) was garbage on the path bench/fanout-cpu.ts measures.
 */
function pushContextsOf(channelCode: string): Record<ApnsEnvironment | 'unknown', PushContext> {
  return {
    production: { channelCode, apnsEnvironment: 'production' },
    sandbox: { channelCode, apnsEnvironment: 'sandbox' },
    unknown: { channelCode, apnsEnvironment: null },
  };
}

/**
 * The outcome of a subscriber that unsubscribed or was removed (DELETE /users/{externalId}) after the dispatch paged
 * it: no push goes out, and it counts as skipped, not failed (recipients = delivered + failed + skipped + pending).
 */
const LEFT_SINCE_DISPATCH: SendOutcome = { kind: 'skipped', reason: 'unsubscribed' };

const FREQUENCY_CAPPED: SendOutcome = { kind: 'skipped', reason: 'frequency_capped' };

/**
 * The batch's subscribers already at their channel's frequency cap (domain/frequency-cap.ts): judged once, in the
 * dispatch's round; a push a provider asked to retry was admitted then and is not judged again. The cap counts the
 * deliveries settled before this batch is sent, so two notifications of a channel sending at the same moment can pass
 * it together (docs/api.md, "Frequency caps").
 */
async function cappedSubscribers(batch: Batch, now: number): Promise<Set<string>> {
  const cap = batch.payload.frequencyCap;
  if (!cap?.enforce || batch.payload.round !== 0) return new Set();
  const delivered = await deliveriesSince(
    batch.deps.store.db,
    batch.payload.subscriberIds,
    now - cap.periodSeconds * 1000,
  );
  const capped = new Set<string>();
  for (const [id, count] of delivered) if (count >= cap.count) capped.add(id);
  return capped;
}

/**
 * The rule of the channel's quiet hours for this batch (domain/quiet-hours.ts): a subscriber's time zone (null: the
 * account's default) → null to send now, `held` until the quiet hours end, or `expired` when the push would expire
 * before they do. Null when nothing waits: no quiet hours for this send, a retry round (admitted already) or a batch
 * released at their end. Each zone is judged once per batch.
 */
function quietHoursRule(
  payload: SendBatchPayload,
  now: number,
  expiresAt: number | null,
): ((timezone: string | null) => SendOutcome | null) | null {
  const quiet = payload.quietHours;
  if (!quiet || payload.round !== 0 || payload.heldForQuietHours) return null;
  const byZone = new Map<string, SendOutcome | null>();
  return (timezone) => {
    const zone = timezone ?? quiet.defaultZone;
    if (!byZone.has(zone)) {
      const until = quietHoursEndAt(quiet, zone, now);
      byZone.set(
        zone,
        until === null ? null : expiresAt !== null && expiresAt <= until ? EXPIRED : { kind: 'held', until },
      );
    }
    return byZone.get(zone)!;
  };
}

const EXPIRED: SendOutcome = { kind: 'rejected', reason: 'expired' };

/** A skip every push of the batch gets, from the content and the platform alone: a silent push to browsers. */
function skipOfWholeBatch(content: PushContent, platform: Platform): SendOutcome | null {
  if (content.contentAvailable && platform === 'web') return { kind: 'skipped', reason: 'silent_not_supported' };
  return null;
}

/** The batch's subscribers by id, in one SELECT (subscribers-queries.ts). */
async function subscribersOf(batch: Batch): Promise<Map<string, BatchSubscriber>> {
  const subscribers = await findBatchSubscribers(batch.deps.store.db, batch.payload.subscriberIds);
  return new Map(subscribers.map((subscriber) => [subscriber.id, subscriber]));
}

/**
 * When the subscribers an APNs 410 called dead last registered: read only for those (a few per batch at most), not
 * with every push's row (subscribers-queries.ts, findBatchSubscribers).
 */
function registrationTimesOf(batch: Batch, outcomes: ReadonlyMap<string, SendOutcome>): Promise<Map<string, number>> {
  const ids: string[] = [];
  for (const [id, outcome] of outcomes) if (outcome.kind === 'token_dead' && outcome.invalidSince != null) ids.push(id);
  return subscriberRegistrationTimes(batch.deps.store.db, ids);
}

/** The one transaction of the batch, committed by settleSentBatch (retried, and the answers kept when it cannot). */
async function settle(
  batch: Batch,
  byId: Map<string, BatchSubscriber>,
  settled: BatchSettlement,
  recorded: () => RecordedOutcomes,
): Promise<void> {
  const { deps, payload, job, owner, notification } = batch;
  const write = async (trx: Kysely<Database>) => {
    const now = deps.clock.now();
    if (!(await deps.queue.complete(trx, job, owner))) throw new LeaseLostError();
    const failures = settled.failed.map(({ id, reason }) => ({ subscriberId: id, platform: payload.platform, reason }));
    const skips = settled.skipped.map(({ id, reason }) => ({ subscriberId: id, platform: payload.platform, reason }));
    const heldNow = settled.held.reduce((sum, group) => sum + group.ids.length, 0);
    await recordBatchOutcomes(trx, {
      notificationId: notification.id,
      delivered: new Map([[payload.platform, settled.delivered.length]]),
      failures,
      skips,
      // A released batch's subscribers wait no more, whatever their outcome.
      heldChange: heldNow - (payload.heldForQuietHours ? payload.subscriberIds.length : 0),
      now,
    });
    await rememberApnsEnvironments(trx, settled.learned);
    await markDelivered(trx, settled.delivered, now);
    const cap = payload.frequencyCap;
    if (cap && settled.delivered.length > 0) {
      await recordCappedDeliveries(trx, {
        notificationId: notification.id,
        subscriberIds: settled.delivered,
        now,
        before: now - cap.periodSeconds * 1000,
      });
    }
    for (const refusal of [settled.fatal, ...settled.misconfiguredOrigins]) {
      if (refusal && batch.appId && isCredentialFailure(refusal.reason)) {
        await markCredentialsFailing(trx, {
          accountId: notification.account_id,
          appId: batch.appId,
          platform: payload.platform,
          reason: refusal.reason,
          fix: refusal.fix,
          now,
        });
      }
    }
    for (const dead of settled.dead) {
      // The batch's subscribers are all of its notification's channel, so of its account, and of the job's platform.
      if (byId.has(dead.id)) {
        const subscriber = { id: dead.id, account_id: notification.account_id, platform: payload.platform };
        await unsubscribeSubscriber(trx, {
          subscriber,
          channelCode: notification.channel_code,
          reason: dead.reason,
          now,
        });
      }
    }
    if (failures.length > 0) {
      await recordEvent(trx, {
        accountId: notification.account_id,
        type: 'delivery.failed',
        data: { notificationId: notification.id, channelCode: notification.channel_code, failures },
        now,
      });
    }
    // Follow-up jobs carry the batch's payload without its recorded answers.
    const { sent: _sent, ...rest } = payload;
    for (const group of settled.held) {
      const released: SendBatchPayload = { ...rest, subscriberIds: group.ids, heldForQuietHours: true };
      await sendBatchJob.enqueue(deps.queue, trx, released, {
        runAt: group.until,
        uniqueKey: `send:${notification.id}:${payload.platform}:${group.ids[0]}:quiet:${group.until}`,
      });
    }
    for (const group of settled.retry) {
      const next: SendBatchPayload = { ...rest, subscriberIds: group.ids, round: payload.round + 1 };
      await sendBatchJob.enqueue(deps.queue, trx, next, {
        runAt: now + retryGroupDelayMs(group, next.round),
        uniqueKey: `send:${notification.id}:${payload.platform}:${group.ids[0]}:${next.round}`,
      });
    }
    await completeNotificationIfDone(trx, notification.id, now);
  };
  await settleSentBatch({
    ...deps,
    job,
    owner,
    definition: sendBatchJob,
    payload,
    recorded,
    backlog: batch.backlog,
    write,
  });
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
