import type { Kysely } from 'kysely';
import type { ApnsEnvironment } from '../../domain/apns-environment.ts';
import { supportsBroadcast } from '../../domain/ios-version.ts';
import { mintLiveActivityReceipt } from '../../domain/receipt.ts';
import { receiptsEnabled } from '../../store/accounts-queries.ts';
import { effectiveStatus } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { JobRow } from '../../queue/job-types.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import { findLiveActivityById, type LiveActivityRow } from '../../store/live-activities/live-activities-queries.ts';
import {
  countLiveActivitySends,
  recordLiveActivityFailures,
} from '../../store/live-activities/live-activity-delivery-queries.ts';
import {
  dropLiveActivityToken,
  findLiveActivityTokens,
} from '../../store/live-activities/live-activity-tokens-queries.ts';
import {
  forgetPushToStartToken,
  pushToStartTokensFor,
} from '../../store/live-activities/push-to-start-tokens-queries.ts';
import type { Database } from '../../store/schema.ts';
import { rememberApnsEnvironments, unsubscribeSubscriber, type Subscriber } from '../../store/subscribers-queries.ts';
import { retryGroupDelayMs, settleBatch, type BatchSettlement } from '../send-batch.ts';
import { sendEach } from '../send-batch.ts';
import {
  givenUpRecord,
  isLastAttempt,
  LeaseLostError,
  settleSentBatch,
  SettleBacklog,
  type RecordedOutcomes,
} from '../send-batch.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import type { DeliveryDependencies } from '../dispatch-job.ts';
import { providersOfChannel, type SendDependencies } from '../channel-providers.ts';
import { MAX_SEND_ROUNDS } from '../job-kinds.ts';
import { subscriptionOrigin } from '../web-push/web-push-subscription.ts';
import { sendJobKey, sendLiveActivityJob, type LiveActivitySendPayload } from './live-activity-jobs.ts';
import { localizedPush, type LiveActivityPush } from './live-activity-push.ts';

/**
 * Fan-out of one lifecycle event, step two: sends the event to one batch of subscribers of one platform, then in ONE
 * transaction that also completes the job settles what the outcomes imply. The send loop, the outcome rules (retry
 * rounds, misconfiguration guard: send-batch.ts) and the settling that never re-sends (send-batch.ts) are the
 * notification send job's; what differs is which token a subscriber is reached at and what a dead one means:
 * - iOS start → the push-to-start token of the activity's template (push-to-start-tokens-queries.ts); dead (410) → that
 *   token is forgotten, the subscriber stays;
 * - iOS update/end → the per-activity token the device reported; dead (410: the activity ended on the device or its
 *   token rotated, docs/protocols.md 2.3) → that token is dropped, the subscriber stays;
 * - Android → the FCM token, web → the browser's subscription; dead → the subscriber is unsubscribed, exactly as for
 *   a notification.
 */
export function sendLiveActivityHandler(deps: SendDependencies): JobHandler {
  const backlog = new SettleBacklog();
  return sendLiveActivityJob.handler(async (payload, job, { owner, progressed }) => {
    const { push, platform } = payload;
    const { db } = deps.store;
    const activity = await findLiveActivityById(db, push.activityId);
    if (!activity) return;
    const subscribers = await db
      .selectFrom('subscribers')
      .selectAll()
      .where('id', 'in', payload.subscriberIds)
      .execute();
    const byId = new Map(subscribers.map((subscriber) => [subscriber.id, subscriber]));

    let recorded = payload.sent ?? backlog.recall(job.id);
    let settled: BatchSettlement;
    const settleRecorded = (outcome: BatchSettlement, answers: RecordedOutcomes) =>
      settleSentBatch({
        ...deps,
        job,
        owner,
        definition: sendLiveActivityJob,
        payload,
        recorded: answers,
        backlog,
        write: settlement(deps, { job, owner }, payload, activity, byId, outcome, answers),
      });
    try {
      // Sent already, but settling it failed: settle those answers, never send again (send-batch.ts).
      // A push no longer worth sending is not sent: its devices count as skipped (settlement).
      if (!recorded)
        recorded = isOutdated(push, activity, payload.round, deps.clock.now())
          ? { sentAt: deps.clock.now(), outcomes: {} }
          : await sendBatch(deps, payload, byId, activity, progressed);
      // Web: each push service judged alone by the misconfiguration guard, as for a notification (send-batch-job.ts).
      const originOf = (id: string) => subscriptionOrigin(byId.get(id)?.token);
      settled = settleBatch(new Map(Object.entries(recorded.outcomes)), {
        round: payload.round,
        ...(platform === 'web' ? { originOf } : {}),
      });
      if (settled.fatal) {
        const { reason, fix } = settled.fatal;
        deps.logger.error(
          { liveActivityId: push.activityId, event: push.event, platform, reason, fix },
          `${platform} Live Activity push failed for the whole batch: ${fix}`,
        );
      }
      for (const { origin, reason, fix } of settled.misconfiguredOrigins) {
        deps.logger.error(
          { liveActivityId: push.activityId, event: push.event, platform, origin, reason, fix },
          `${platform} Live Activity push failed for every browser at ${origin}: ${fix}`,
        );
      }
      await settleRecorded(settled, recorded);
    } catch (error) {
      if (!isLastAttempt(job) || error instanceof LeaseLostError) throw error;
      deps.logger.error(
        { err: error, jobId: job.id, liveActivityId: push.activityId },
        'live activity send job failed its last attempt; settling what it has',
      );
      const givenUp = givenUpRecord(payload.subscriberIds, recorded, deps.clock.now());
      settled = settleBatch(givenUp.outcomes, { round: MAX_SEND_ROUNDS });
      await settleRecorded(settled, givenUp.recorded);
    }
    const failed: Record<string, number> = {};
    for (const { reason } of settled.failed) failed[reason] = (failed[reason] ?? 0) + 1;
    deps.logger.info(
      {
        liveActivityId: push.activityId,
        event: push.event,
        platform,
        round: payload.round,
        delivered: settled.delivered.length,
        dead: settled.dead.length,
        retry: settled.retry.reduce((sum, group) => sum + group.ids.length, 0),
        failed,
      },
      'live activity batch sent',
    );
  });
}

async function sendBatch(
  deps: SendDependencies,
  payload: LiveActivitySendPayload,
  byId: Map<string, Subscriber>,
  activity: LiveActivityRow,
  /** Each answered push is progress for the worker (worker-pool.ts, STALLED_AFTER_MS). */
  progressed: (() => void) | undefined,
): Promise<RecordedOutcomes> {
  const { push, platform } = payload;
  // iOS: a start goes to the push-to-start token of the activity's template, an update or end to the activity's own token.
  let tokenOf = new Map<string, string>();
  if (platform === 'ios' && push.event === 'start')
    tokenOf = await pushToStartTokensFor(deps.store.db, [...byId.values()], push.template);
  if (platform === 'ios' && push.event !== 'start') {
    const activityTokens = await findLiveActivityTokens(deps.store.db, push.activityId, payload.subscriberIds);
    tokenOf = new Map(activityTokens.map((row) => [row.subscriber_id, row.token]));
  }
  // The channel's app's credentials (docs/apps.md), like a notification's.
  const sender = (await providersOfChannel(deps, activity.channel_id))[platform];
  const sentTo: Record<string, string> = {};
  const sentAt = deps.clock.now();
  // The broadcast part of the audience is started on the activity's channel instead of with an update token.
  const channelStart =
    platform === 'ios' && push.event === 'start' && activity.apns_channel_id
      ? { ...push, inputPushChannel: activity.apns_channel_id }
      : null;
  // The channel exists in one APNs environment (the push host's); a device known to be in the other can't join it.
  const channelEnvironment = sender.liveActivityBroadcast?.environment ?? 'production';
  // A push the device shows (one with an alert) carries the device's receipt, unless the account turned them off.
  const receiptOf =
    push.alert !== null && (await receiptsEnabled(deps.store.db, activity.account_id))
      ? (id: string) => mintLiveActivityReceipt(deps.receiptKey, activity.id, id)
      : null;
  const outcomes = await sendEach(
    payload.subscriberIds,
    async (id): Promise<DeliveryOutcome | null> => {
      const subscriber = byId.get(id);
      // Gone since the dispatch: unsubscribed, or its token dropped or cleared by an earlier answer.
      const token = subscriber?.status === 'active' ? targetToken(subscriber, tokenOf) : null;
      if (!subscriber || token === null) return null;
      sentTo[id] = token;
      if (!sender.sendLiveActivity) return { kind: 'rejected', reason: `${platform}:live_activities_not_supported` };
      const onChannel = channelStart && joinsChannel(activity, subscriber, channelEnvironment) ? channelStart : push;
      const devicePush = receiptOf ? { ...onChannel, receipt: receiptOf(id) } : onChannel;
      return sender.sendLiveActivity(
        token,
        localizedPush(devicePush, subscriber.locale),
        { timeZone: subscriber.timezone, locale: subscriber.locale },
        subscriber.apns_environment,
      );
    },
    { onAnswer: progressed },
  );
  return { sentAt, outcomes: Object.fromEntries(outcomes), tokens: sentTo };
}

/**
 * The batch's one transaction: completes the job, counts its outcomes into the event's delivery stats and lists its
 * failures (live-activity-delivery-queries.ts), drops what the answers called dead, enqueues the next round. A device
 * of the batch with no answer was not sent to (gone since the dispatch, no token, or the push was outdated): skipped.
 */
function settlement(
  deps: DeliveryDependencies,
  lease: { job: JobRow; owner: string },
  payload: LiveActivitySendPayload,
  activity: LiveActivityRow,
  byId: Map<string, Subscriber>,
  settled: BatchSettlement,
  recorded: RecordedOutcomes,
): (trx: Kysely<Database>) => Promise<void> {
  const { push, platform } = payload;
  return async (trx) => {
    const now = deps.clock.now();
    if (!(await deps.queue.complete(trx, lease.job, lease.owner))) throw new LeaseLostError();
    const event = { liveActivityId: push.activityId, timestamp: push.timestamp };
    const notSent = payload.subscriberIds.filter((id) => !(id in recorded.outcomes)).length;
    await countLiveActivitySends(trx, {
      ...event,
      platform,
      mode: 'tokens',
      counts: {
        delivered: settled.delivered.length,
        failed: settled.failed.length,
        skipped: settled.skipped.length + notSent,
      },
    });
    await recordLiveActivityFailures(trx, {
      ...event,
      failures: settled.failed.map(({ id, reason }) => ({ subscriberId: id, platform, reason })),
      now,
    });
    // The host that took a push for a subscriber of unknown environment: the app build's, for every later push too.
    await rememberApnsEnvironments(trx, settled.learned);
    for (const { id, reason } of settled.dead) {
      const subscriber = byId.get(id);
      const token = recorded.tokens?.[id];
      if (!subscriber || token === undefined) continue;
      if (platform === 'android' || platform === 'web')
        await unsubscribeSubscriber(trx, { subscriber, channelCode: activity.channel_code, reason, now });
      else if (push.event === 'start') await forgetPushToStartToken(trx, { subscriberId: id, token, now });
      else await dropLiveActivityToken(trx, { liveActivityId: push.activityId, subscriberId: id, token });
    }
    for (const group of settled.retry) {
      const { sent: _sent, ...rest } = payload;
      const next: LiveActivitySendPayload = { ...rest, subscriberIds: group.ids, round: payload.round + 1 };
      await sendLiveActivityJob.enqueue(deps.queue, trx, next, {
        runAt: now + retryGroupDelayMs(group, next.round),
        uniqueKey: sendJobKey(push, platform, group.ids[0]!, next.round),
      });
    }
  };
}

/**
 * A push not worth sending any more: anything but the end once the activity has ended (the end carries the final
 * state), and a retried update once a newer event has gone out (the device would drop it as older anyway).
 */
function isOutdated(push: LiveActivityPush, activity: LiveActivityRow, round: number, now: number): boolean {
  if (push.event !== 'end' && effectiveStatus(activity, now).status === 'ended') return true;
  return push.event === 'update' && round > 0 && activity.push_timestamp > push.timestamp;
}

/** `broadcast`: every iOS device; `auto`: those that reported iOS 18 or later (docs/live-activities.md, "Broadcast"). */
function startsOnChannel(
  activity: Pick<LiveActivityRow, 'delivery'>,
  subscriber: Pick<Subscriber, 'os_version'>,
): boolean {
  return (
    activity.delivery === 'broadcast' || (activity.delivery === 'auto' && supportsBroadcast(subscriber.os_version))
  );
}

/**
 * Whether the start puts this device on the activity's channel: it starts on a channel, and is not known to be in the
 * other APNs environment than the channel's (such a device is started per token from its own host).
 */
export function joinsChannel(
  activity: Pick<LiveActivityRow, 'delivery'>,
  subscriber: Pick<Subscriber, 'os_version' | 'apns_environment'>,
  channelEnvironment: ApnsEnvironment,
): boolean {
  return (
    startsOnChannel(activity, subscriber) &&
    (subscriber.apns_environment === null || subscriber.apns_environment === channelEnvironment)
  );
}

/** Android and web: the subscriber's own token; iOS: the push-to-start or activity token found for the event. */
function targetToken(subscriber: Subscriber, iosTokens: Map<string, string>): string | null {
  if (subscriber.platform === 'android' || subscriber.platform === 'web') return subscriber.token;
  return iosTokens.get(subscriber.id) ?? null;
}
