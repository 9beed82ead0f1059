import type { Kysely } from 'kysely';
import { defaultStartAlert, type LiveActivityAlert } from '../../domain/live-activities/live-activity-alert.ts';
import { LIVE_ACTIVITY_MAX_MS } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { TemplateFields, TemplateName } from '../../domain/live-activities/live-activity-templates.ts';
import type { JobQueue } from '../../queue/job-queue.ts';
import type { LiveActivityRow } from '../../store/live-activities/live-activities-queries.ts';
import { hasPushToStartTokenFor } from '../../store/live-activities/push-to-start-tokens-queries.ts';
import type { Database } from '../../store/schema.ts';
import { enqueueLiveActivitySends } from './live-activity-jobs.ts';
import { liveActivityPushOf } from './live-activity-snapshot.ts';

/**
 * Late joiners (docs/live-activities.md, "Late joiners"): an iOS device that turns up while an activity of its
 * channel is running gets the current state at once instead of waiting for the next event.
 * - A device that registers with a push-to-start token for the template after the activity started (so the start's
 *   dispatch did not reach it) is started now, with the current fields, on the activity's channel when it belongs to
 *   the broadcast part. Once per device and activity (the job's unique key), however often the app registers.
 * - A device that reports its activity token after events went out since the start gets an update with the current
 *   fields at priority 10 (it may have missed them while it had no token to be reached at).
 * Both are one-subscriber send jobs, enqueued in the caller's transaction; the send job's rules apply (dead tokens,
 * retries, nothing sent once the activity has ended), and each counts with the activity's latest event in its
 * delivery stats: the device gets that event's state.
 */

/** Starts, on one newly registered iOS subscriber, every running activity of its channel it has a token for. */
export async function startLateJoiner(
  trx: Kysely<Database>,
  queue: JobQueue,
  subscriber: { id: string; channel_id: string; created_at: number },
  now: number,
): Promise<number> {
  const running = await trx
    .selectFrom('live_activities')
    .selectAll()
    .where('channel_id', '=', subscriber.channel_id)
    .where('status', '=', 'active')
    .where('started_at', '>', now - LIVE_ACTIVITY_MAX_MS)
    // Subscribers that existed at the start are the start dispatch's.
    .where('started_at', '<', subscriber.created_at)
    .execute();
  let started = 0;
  for (const activity of running) {
    const eligible = await trx
      .selectFrom('subscribers')
      .select('id')
      .where('id', '=', subscriber.id)
      .where(hasPushToStartTokenFor(activity.template))
      .executeTakeFirst();
    if (!eligible) continue;
    const push = liveActivityPushOf(activity, 'start', startAlertOf(activity));
    await enqueueLiveActivitySends(
      trx,
      queue,
      { push, platform: 'ios', subscriberIds: [subscriber.id], round: 0 },
      `live_activity.catch_up_start:${activity.id}:${subscriber.id}`,
    );
    started += 1;
  }
  return started;
}

/** Sends the current state to a device that just reported its activity token, when anything changed since the start. */
export async function updateLateJoiner(
  trx: Kysely<Database>,
  queue: JobQueue,
  activity: LiveActivityRow,
  subscriberId: string,
): Promise<boolean> {
  // The start's own timestamp (the moment it started): the device shows that state already.
  if (activity.push_timestamp <= (activity.started_at ?? activity.push_timestamp)) return false;
  const push = liveActivityPushOf(activity, 'update', null, 'high');
  await enqueueLiveActivitySends(
    trx,
    queue,
    { push, platform: 'ios', subscriberIds: [subscriberId], round: 0 },
    `live_activity.catch_up:${activity.id}:${subscriberId}:${activity.push_timestamp}`,
  );
  return true;
}

/** A start needs an alert: the latest one the activity showed, else the one made from its fields. */
export function startAlertOf(activity: LiveActivityRow): LiveActivityAlert {
  if (activity.alert) return JSON.parse(activity.alert) as LiveActivityAlert;
  return defaultStartAlert(activity.template as TemplateName, JSON.parse(activity.fields) as TemplateFields);
}
