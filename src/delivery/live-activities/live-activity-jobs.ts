import type { Kysely } from 'kysely';
import type { JobQueue } from '../../queue/job-queue.ts';
import type { Database } from '../../store/schema.ts';
import type { LiveActivityPush } from './live-activity-push.ts';

/**
 * Job kinds of Live Activity delivery and their payloads. Every lifecycle event rides the durable queue the way a
 * notification does (docs/delivery.md): the endpoint enqueues one dispatch job in the transaction that records the
 * event, the dispatch pages the targets into send jobs, and the send jobs talk to the providers.
 */
export const DISPATCH_LIVE_ACTIVITY = 'live_activity.dispatch';
export const SEND_LIVE_ACTIVITY = 'live_activity.send';
export const EXPIRE_LIVE_ACTIVITY = 'live_activity.expire';

export type LiveActivityPlatform = 'ios' | 'android';

export interface LiveActivityDispatchPayload {
  push: LiveActivityPush;
  /** Which platforms get this event: both, or only Android for the 8-hour end iOS has already applied itself. */
  platforms: LiveActivityPlatform[];
}

export interface LiveActivitySendPayload {
  push: LiveActivityPush;
  platform: LiveActivityPlatform;
  subscriberIds: string[];
  /** 0 for the dispatch's batch; +1 each time the tokens a provider asked to retry are sent again. */
  round: number;
}

export interface LiveActivityExpirePayload {
  liveActivityId: string;
}

/** Hands one lifecycle event to the delivery engine, inside the transaction that records it (the outbox). */
export async function enqueueLiveActivityPush(
  trx: Kysely<Database>,
  queue: JobQueue,
  push: LiveActivityPush,
  platforms: LiveActivityPlatform[] = ['ios', 'android'],
): Promise<void> {
  const payload: LiveActivityDispatchPayload = { push, platforms };
  // The timestamp is unique per activity and event, so the key names this one event.
  await queue.enqueue(trx, { kind: DISPATCH_LIVE_ACTIVITY, payload, uniqueKey: `live_activity.dispatch:${push.activityId}:${push.timestamp}` });
}

/** The job that records the system's end of the activity after 8 hours (live-activity-expire-job.ts). */
export async function scheduleLiveActivityExpiry(trx: Kysely<Database>, queue: JobQueue, input: { liveActivityId: string; expiresAt: number }): Promise<void> {
  const payload: LiveActivityExpirePayload = { liveActivityId: input.liveActivityId };
  await queue.enqueue(trx, { kind: EXPIRE_LIVE_ACTIVITY, payload, runAt: input.expiresAt, uniqueKey: `live_activity.expire:${input.liveActivityId}` });
}

export function sendJobKey(push: LiveActivityPush, platform: LiveActivityPlatform, firstSubscriberId: string, round: number): string {
  return `live_activity.send:${push.activityId}:${push.timestamp}:${platform}:${firstSubscriberId}:${round}`;
}
