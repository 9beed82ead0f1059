import type { Kysely } from 'kysely';
import type { ApnsEnvironment } from '../../domain/apns-environment.ts';
import { defineJob } from '../../queue/job-definition.ts';
import type { JobQueue } from '../../queue/job-queue.ts';
import {
  countLiveActivitySends,
  recordLiveActivityEvent,
  type LiveActivityPlatform,
} from '../../store/live-activities/live-activity-delivery-queries.ts';
import type { Database } from '../../store/schema.ts';
import type { RecordedOutcomes } from '../send-batch.ts';
import type { LiveActivityPush } from './live-activity-push.ts';

/**
 * Job kinds of Live Activity delivery and their payloads. Every lifecycle event rides the durable queue the way a
 * notification does (docs/delivery.md): the endpoint enqueues one dispatch job in the transaction that records the
 * event, the dispatch pages the targets into send jobs, and the send jobs talk to the providers.
 */

export type { LiveActivityPlatform };

export interface LiveActivityDispatchPayload {
  push: LiveActivityPush;
  /** Which platforms get this event: all three, or Android and the web for the 8-hour end iOS has already applied itself. */
  platforms: LiveActivityPlatform[];
  /**
   * A start, per token, for the audience of this broadcast channel only: APNs no longer knows the channel
   * (live-activity-broadcast-job.ts), so the devices started on it are started again on tokens of their own.
   */
  lostChannel?: { channelId: string; environment: ApnsEnvironment };
}

export interface LiveActivitySendPayload {
  push: LiveActivityPush;
  platform: LiveActivityPlatform;
  subscriberIds: string[];
  /** 0 for the dispatch's batch; +1 each time the tokens a provider asked to retry are sent again. */
  round: number;
  /** The answers of a batch sent whose settling could not commit: settled by the next attempt without sending (send-batch.ts). */
  sent?: RecordedOutcomes;
}

export interface LiveActivityExpirePayload {
  liveActivityId: string;
}

/** One update or end sent on the activity's APNs broadcast channel: one request for the whole broadcast audience. */
export interface LiveActivityBroadcastPayload {
  push: LiveActivityPush;
  channelId: string;
  /** The devices started on the channel when the dispatch made the job: what its outcome counts for. */
  devices?: number;
}

/** Deletes an APNs broadcast channel no activity needs any more (its activity ended, or it was never attached). */
export interface LiveActivityChannelDeletePayload {
  channelId: string;
}

export const dispatchLiveActivityJob = defineJob<LiveActivityDispatchPayload>('live_activity.dispatch');
export const broadcastLiveActivityJob = defineJob<LiveActivityBroadcastPayload>('live_activity.broadcast');
export const deleteLiveActivityChannelJob = defineJob<LiveActivityChannelDeletePayload>('live_activity.delete_channel');
export const sweepLiveActivityChannelsJob = defineJob<Record<string, never>>('live_activity.sweep_channels');
export const sendLiveActivityJob = defineJob<LiveActivitySendPayload>('live_activity.send', {
  lane: (payload) => payload.platform,
});
export const expireLiveActivityJob = defineJob<LiveActivityExpirePayload>('live_activity.expire');
/** Ends an activity that heard nothing for its endAfterSecondsWithoutUpdate since the event at `timestamp`. */
export const autoEndLiveActivityJob = defineJob<{ liveActivityId: string; timestamp: number }>(
  'live_activity.auto_end',
);
/** Starts an activity accepted with `sendAt`, at that time (live-activity-start-job.ts). */
export const startLiveActivityJob = defineJob<{ liveActivityId: string }>('live_activity.start');
export const DISPATCH_LIVE_ACTIVITY = dispatchLiveActivityJob.kind;
export const SEND_LIVE_ACTIVITY = sendLiveActivityJob.kind;
export const EXPIRE_LIVE_ACTIVITY = expireLiveActivityJob.kind;
export const AUTO_END_LIVE_ACTIVITY = autoEndLiveActivityJob.kind;
export const START_LIVE_ACTIVITY = startLiveActivityJob.kind;
export const BROADCAST_LIVE_ACTIVITY = broadcastLiveActivityJob.kind;
export const DELETE_LIVE_ACTIVITY_CHANNEL = deleteLiveActivityChannelJob.kind;
export const SWEEP_LIVE_ACTIVITY_CHANNELS = sweepLiveActivityChannelsJob.kind;

/**
 * Hands one lifecycle event to the delivery engine, inside the transaction that records it (the outbox), and records
 * the event for its delivery stats (live-activity-delivery-queries.ts).
 */
export async function enqueueLiveActivityPush(
  trx: Kysely<Database>,
  queue: JobQueue,
  push: LiveActivityPush,
  platforms: LiveActivityPlatform[] = ['ios', 'android', 'web'],
): Promise<void> {
  await recordLiveActivityEvent(trx, {
    liveActivityId: push.activityId,
    timestamp: push.timestamp,
    event: push.event,
    now: queue.clock.now(),
  });
  const payload: LiveActivityDispatchPayload = { push, platforms };
  // The timestamp is unique per activity and event, so the key names this one event.
  await dispatchLiveActivityJob.enqueue(queue, trx, payload, {
    uniqueKey: `live_activity.dispatch:${push.activityId}:${push.timestamp}`,
  });
}

/**
 * Enqueues a batch of devices to send an event to (a dispatch's page, or one late joiner) in the caller's
 * transaction, counting them as targeted by the event when this call made the job: a dispatch that pages again after
 * a crash, or a device that registers twice, is counted once (the job's unique key).
 */
export async function enqueueLiveActivitySends(
  trx: Kysely<Database>,
  queue: JobQueue,
  payload: LiveActivitySendPayload,
  uniqueKey: string,
): Promise<void> {
  if (!(await sendLiveActivityJob.enqueueNew(queue, trx, payload, { uniqueKey }))) return;
  await countLiveActivitySends(trx, {
    liveActivityId: payload.push.activityId,
    timestamp: payload.push.timestamp,
    platform: payload.platform,
    mode: 'tokens',
    counts: { targeted: payload.subscriberIds.length },
  });
}

/** The job that records the system's end of the activity after 8 hours (live-activity-expire-job.ts). */
export async function scheduleLiveActivityExpiry(
  trx: Kysely<Database>,
  queue: JobQueue,
  input: { liveActivityId: string; expiresAt: number },
): Promise<void> {
  const payload: LiveActivityExpirePayload = { liveActivityId: input.liveActivityId };
  await expireLiveActivityJob.enqueue(queue, trx, payload, {
    runAt: input.expiresAt,
    uniqueKey: `live_activity.expire:${input.liveActivityId}`,
  });
}

export function sendJobKey(
  push: LiveActivityPush,
  platform: LiveActivityPlatform,
  firstSubscriberId: string,
  round: number,
): string {
  return `live_activity.send:${push.activityId}:${push.timestamp}:${platform}:${firstSubscriberId}:${round}`;
}

/** The channel's deletion, once: after the end went out on it, or when the activity reached its 8 hours. */
export async function scheduleChannelDeletion(
  trx: Kysely<Database>,
  queue: JobQueue,
  channelId: string,
): Promise<void> {
  await deleteLiveActivityChannelJob.enqueue(
    queue,
    trx,
    { channelId },
    { uniqueKey: `live_activity.delete_channel:${channelId}` },
  );
}

/**
 * After an event of an activity with endAfterSecondsWithoutUpdate: the job that ends it if no other event follows in
 * time (live-activity-auto-end-job.ts). One per event; a later event's job supersedes it.
 */
export async function scheduleAutoEnd(
  trx: Kysely<Database>,
  queue: JobQueue,
  activity: { id: string; push_timestamp: number; auto_end_after_ms: number | null },
  now: number,
): Promise<void> {
  if (activity.auto_end_after_ms === null) return;
  await autoEndLiveActivityJob.enqueue(
    queue,
    trx,
    { liveActivityId: activity.id, timestamp: activity.push_timestamp },
    {
      runAt: now + activity.auto_end_after_ms,
      uniqueKey: `live_activity.auto_end:${activity.id}:${activity.push_timestamp}`,
    },
  );
}

/** The unique key of a scheduled activity's start job: the cancel deletes the job by it. */
export const startJobKey = (liveActivityId: string): string => `live_activity.start:${liveActivityId}`;

/** The job that starts a scheduled activity at its sendAt, in the transaction that accepts it. */
export async function scheduleLiveActivityStart(
  trx: Kysely<Database>,
  queue: JobQueue,
  input: { liveActivityId: string; sendAt: number },
): Promise<void> {
  await startLiveActivityJob.enqueue(
    queue,
    trx,
    { liveActivityId: input.liveActivityId },
    { runAt: input.sendAt, uniqueKey: startJobKey(input.liveActivityId) },
  );
}
