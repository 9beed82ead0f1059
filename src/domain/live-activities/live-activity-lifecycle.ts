import { LIVE_ACTIVITY_MAX_SECONDS } from './live-activity-templates.ts';

/**
 * Time rules of a Live Activity, pure. iOS ends an activity 8 hours after it started and keeps the ended one on the
 * Lock Screen at most 4 hours more (docs/protocols.md 2.3); Clarion mirrors the first rule so its status never says
 * `active` about something no device shows any more.
 */

/** iOS ends a Live Activity this long after its start (docs/protocols.md 2.3). */
export const LIVE_ACTIVITY_MAX_MS = LIVE_ACTIVITY_MAX_SECONDS * 1000;
/** An ended activity stays on the Lock Screen at most this long; a later `dismissal-date` would be ignored. */
export const LIVE_ACTIVITY_DISMISS_MAX_MS = 4 * 60 * 60 * 1000;

/** When iOS ends the activity by itself: 8 hours after it started (for a scheduled start, when it went out). */
export function liveActivityExpiresAt(startedAt: number): number {
  return startedAt + LIVE_ACTIVITY_MAX_MS;
}

/**
 * The last moment a lifecycle push is worth delivering to a device that is offline when it goes out: a start or an
 * update until the activity's 8 hours are over (nothing shows it after that), the end until an ended activity would
 * have left the Lock Screen at the latest (4 hours more), so a device that comes back after the end still takes its
 * activity down. iOS needs no more than the 8 hours for any event: it ends the activity itself then.
 */
export function liveActivityDeliveryDeadline(event: 'start' | 'update' | 'end', expiresAt: number): number {
  return event === 'end' ? expiresAt + LIVE_ACTIVITY_DISMISS_MAX_MS : expiresAt;
}

export type LiveActivityLifecycleStatus = 'scheduled' | 'active' | 'ended' | 'canceled';

export interface LiveActivityTimes {
  status: LiveActivityLifecycleStatus;
  started_at: number | null;
  ended_at: number | null;
}

/**
 * The status a reader sees: `ended` once ended by a call, or once 8 hours have passed since the start even if the job
 * that records the expiry has not run yet (no worker, or a busy queue), so reads never depend on the queue being on
 * time. A `scheduled` activity stays so until its start job has run: only then has anything been pushed.
 */
export function effectiveStatus(
  activity: LiveActivityTimes,
  now: number,
): { status: LiveActivityLifecycleStatus; endedAt: number | null } {
  if (activity.status !== 'active' || activity.started_at === null)
    return { status: activity.status, endedAt: activity.ended_at };
  const expiresAt = liveActivityExpiresAt(activity.started_at);
  return now >= expiresAt ? { status: 'ended', endedAt: expiresAt } : { status: 'active', endedAt: null };
}

/**
 * The next event timestamp (epoch ms) of an activity whose last one was `lastMs`: the current millisecond, or one more
 * than the last when several events fall in the same one. Strictly increasing, so the event is unique (the jobs' keys
 * name it) and an Android app can order what FCM delivers out of order; and at most as far ahead of the clock as there
 * are events in one millisecond, so it never runs ahead under sustained updates: iOS drops an `aps.timestamp` far in
 * the future (docs/protocols.md 2.2). APNs gets it in seconds (apnsTimestampSeconds): events of one second share one,
 * which iOS applies, as it ignores only an older one. The store applies the same rule atomically in SQL
 * (live-activities-queries.ts claimEventTimestamp).
 */
export function nextPushTimestamp(lastMs: number, now: number): number {
  return Math.max(now, lastMs + 1);
}

/** The APNs `aps.timestamp` of an event (epoch ms): epoch seconds (docs/protocols.md 2.2). */
export function apnsTimestampSeconds(valueMs: number): number {
  return Math.floor(valueMs / 1000);
}
