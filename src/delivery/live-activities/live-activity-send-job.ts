import { effectiveStatus } from '../../domain/live-activity-lifecycle.ts';
import { retryDelayMs } from '../../queue/retry-policy.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import { findLiveActivityById, type LiveActivityRow } from '../../store/live-activities-store.ts';
import { clearPushToStartToken } from '../../store/live-activity-targets-store.ts';
import { dropLiveActivityToken, findLiveActivityTokens } from '../../store/live-activity-tokens-store.ts';
import { withConflictRetry } from '../../store/store-errors.ts';
import { unsubscribeSubscriber, type Subscriber } from '../../store/subscribers-store.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import type { DeliveryDependencies } from '../dispatch-job.ts';
import { MAX_SEND_ROUNDS } from '../job-kinds.ts';
import type { PushProviders } from '../push-sender.ts';
import { guardAgainstMisconfiguration } from '../send-batch-job.ts';
import { SEND_LIVE_ACTIVITY, sendJobKey, type LiveActivitySendPayload } from './live-activity-jobs.ts';
import type { LiveActivityPush } from './live-activity-push.ts';

/**
 * Fan-out of one lifecycle event, step two: sends the event to one batch of subscribers of one platform, then in ONE
 * transaction that also completes the job settles what the outcomes imply. The outcome types, retry policy, round
 * limit and misconfiguration guard are the notification send job's (send-batch-job.ts); what differs is which token
 * a subscriber is reached at and what a dead one means:
 * - iOS start → the push-to-start token; dead (410) → that token is forgotten, the subscriber stays;
 * - iOS update/end → the per-activity token the device reported; dead (410: the activity ended on the device or its
 *   token rotated, docs/protocols.md 2.3) → that token is dropped, the subscriber stays;
 * - Android → the FCM token; dead → the subscriber is unsubscribed, exactly as for a notification.
 */
export function sendLiveActivityHandler(deps: DeliveryDependencies & { providers: PushProviders }): JobHandler {
  return async (job, { owner }) => {
    const payload = JSON.parse(job.payload) as LiveActivitySendPayload;
    const { push, platform } = payload;
    const { db } = deps.store;
    const activity = await findLiveActivityById(db, push.activityId);
    if (!activity || isOutdated(push, activity, payload.round, deps.clock.now())) return;
    const subscribers = await db.selectFrom('subscribers').selectAll().where('id', 'in', payload.subscriberIds).execute();
    const byId = new Map(subscribers.map((subscriber) => [subscriber.id, subscriber]));
    const activityTokens = platform === 'ios' && push.event !== 'start' ? await findLiveActivityTokens(db, push.activityId, payload.subscriberIds) : [];
    const tokenOf = new Map(activityTokens.map((row) => [row.subscriber_id, row.token]));
    const sender = deps.providers[platform];

    const sentTo = new Map<string, string>();
    const outcomes = new Map<string, DeliveryOutcome>();
    await Promise.all(
      payload.subscriberIds.map(async (id) => {
        const subscriber = byId.get(id);
        // Gone since the dispatch: unsubscribed, or its token dropped or cleared by an earlier answer.
        const token = subscriber?.status === 'active' ? targetToken(subscriber, push, tokenOf) : null;
        if (token === null) return;
        sentTo.set(id, token);
        if (!sender.sendLiveActivity) {
          outcomes.set(id, { kind: 'rejected', reason: `${platform}:live_activities_not_supported` });
          return;
        }
        try {
          outcomes.set(id, await sender.sendLiveActivity(token, push));
        } catch (error) {
          outcomes.set(id, { kind: 'retry', reason: `network: ${(error as Error).message}`, retryAfterMs: null });
        }
      }),
    );

    guardAgainstMisconfiguration(outcomes);
    const settled = settle(outcomes, payload.round);
    const fatal = [...outcomes.values()].find((outcome) => outcome.kind === 'fatal');
    if (fatal?.kind === 'fatal') {
      deps.logger.error({ liveActivityId: push.activityId, event: push.event, platform, reason: fatal.reason, fix: fatal.fix }, `${platform} Live Activity push failed for the whole batch: ${fatal.fix}`);
    }

    // The pushes are out: a deadlock abort must not make the job repeat them, so the transaction is retried instead.
    await withConflictRetry(() =>
      db.transaction().execute(async (trx) => {
        const now = deps.clock.now();
        if (!(await deps.queue.complete(trx, job, owner))) throw new Error('lease lost: another worker runs this batch now');
        for (const { id, reason } of settled.dead) {
          const subscriber = byId.get(id)!;
          const token = sentTo.get(id)!;
          if (platform === 'android') await unsubscribeSubscriber(trx, { subscriber, channelCode: activity.channel_code, reason, now });
          else if (push.event === 'start') await clearPushToStartToken(trx, { subscriberId: id, token, now });
          else await dropLiveActivityToken(trx, { liveActivityId: push.activityId, subscriberId: id, token });
        }
        if (settled.retry.length > 0) {
          const next: LiveActivitySendPayload = { ...payload, subscriberIds: settled.retry, round: payload.round + 1 };
          await deps.queue.enqueue(trx, {
            kind: SEND_LIVE_ACTIVITY,
            payload: next,
            runAt: now + retryDelayMs(next.round, Math.random, settled.retryAfterMs),
            uniqueKey: sendJobKey(push, platform, settled.retry[0]!, next.round),
          });
        }
      }),
    );
    deps.logger.info(
      { liveActivityId: push.activityId, event: push.event, platform, round: payload.round, delivered: settled.delivered, dead: settled.dead.length, retry: settled.retry.length, failed: settled.failed },
      'live activity batch sent',
    );
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

function targetToken(subscriber: Subscriber, push: LiveActivityPush, activityTokens: Map<string, string>): string | null {
  if (subscriber.platform === 'android') return subscriber.token;
  if (subscriber.platform !== 'ios') return null;
  return push.event === 'start' ? subscriber.push_to_start_token : (activityTokens.get(subscriber.id) ?? null);
}

interface Settled {
  delivered: number;
  dead: Array<{ id: string; reason: 'token_unregistered' | 'token_invalid' }>;
  retry: string[];
  retryAfterMs: number | null;
  /** Failed for good, by reason (rejected, fatal, retry_exhausted), for the log. */
  failed: Record<string, number>;
}

/** As for notifications: a fatal outcome (our configuration) fails every push not delivered, and drops no token. */
function settle(outcomes: Map<string, DeliveryOutcome>, round: number): Settled {
  const result: Settled = { delivered: 0, dead: [], retry: [], retryAfterMs: null, failed: {} };
  const fail = (reason: string) => (result.failed[reason] = (result.failed[reason] ?? 0) + 1);
  const fatal = [...outcomes.values()].find((outcome) => outcome.kind === 'fatal');
  for (const [id, outcome] of outcomes) {
    if (outcome.kind === 'delivered') result.delivered += 1;
    else if (fatal?.kind === 'fatal') fail(fatal.reason);
    else if (outcome.kind === 'token_dead') result.dead.push({ id, reason: outcome.reason });
    else if (outcome.kind === 'retry') {
      if (round + 1 >= MAX_SEND_ROUNDS) fail('retry_exhausted');
      else {
        result.retry.push(id);
        if (outcome.retryAfterMs !== null) result.retryAfterMs = Math.max(result.retryAfterMs ?? 0, outcome.retryAfterMs);
      }
    } else fail(outcome.reason);
  }
  return result;
}
