import { blankContent } from '../../domain/notification-content.ts';
import { defaultStartAlert } from '../../domain/live-activities/live-activity-alert.ts';
import type { StatusState } from '../../domain/live-activities/live-activity-templates.ts';
import { clockTime, liveActivityStateText, type ReaderPlace } from '../../domain/live-activities/live-activity-text.ts';
import type { PushContent } from '../push-content.ts';
import type { LiveActivityPush } from './live-activity-push.ts';

/**
 * LiveActivityPush → the Web Push content of one browser (docs/live-activities.md, "Web"). Browsers have no Live
 * Activities, so the web counterpart is one notification per activity, replaced in place at every event. It goes
 * through the notification path's own Web Push message and headers (src/delivery/web-push/web-push-message.ts), so
 * the service worker (web-sdk/clarion-sw.js) gets the same JSON as for a notification:
 *
 *   title  the activity's title
 *   body   an alert's text (start, alerting updates; not the default start alert, which only repeats the state) over
 *          the state as text: a bar and "45 % · Packing",
 *          "Ends at 14:30 · Boarding" in the subscriber's own zone and language, "Ajax 2 – 1 PSV (2nd half)",
 *          "Step 2 of 4", "CPU 72 % ↑ · Errors 3", "🔴 Error · Disk full on db-2" (a status activity's state as a
 *          coloured mark, stateMarks); with a `staleAt`, "Out of date after 14:30" in the reader's zone (a shown
 *          notification cannot change by itself, so it carries the time its content goes stale); and "Ended" on the end
 *   tag    the activity id (the `notificationId` slot): each event replaces the notification shown, and as the
 *          push's Topic it replaces an older event still waiting at the push service (the end has its own, below)
 *   data   {clarion: "live_activity", event, activityId, template, timestamp, alerting: "true" | "false",
 *          endsAt?}: the service worker alerts again (renotify) only when `alerting`, so silent updates replace the
 *          notification quietly, and shows a timer's `endsAt` as the notification's time
 *
 * TTL: a start or update until iOS would end the activity (start + 8 hours, `expiresAt`): past it a newer state or
 * the end supersedes it. The end is different: the browser's notification stays until the person dismisses it, so
 * the end is what leaves it true, and it must outlive a browser that was offline for hours. It lives
 * END_LIFETIME_MS from the end (an end at the 8-hour expiry would otherwise get a TTL of 1 s), under a Topic of its
 * own (`<activity id>:end`, hashed to 32 characters): an update still waiting for an offline browser neither replaces
 * it nor is replaced by it, and a repeated end replaces its own copy. Urgency: high when the event alerts, normal for
 * a silent update. Pure.
 */
const BAR_CELLS = 10;
/**
 * A `status` activity's state as a coloured mark before its line, in the colours docs/live-activities.md suggests for
 * the app's views (ok green, warning amber, error red, pending grey, the nearest of which is white): a notification
 * cannot be coloured, but an emoji shows in every browser's.
 */
const stateMarks: Readonly<Record<StatusState, string>> = { ok: '🟢', warning: '🟠', error: '🔴', pending: '⚪' };
/**
 * A day: a browser offline overnight or through a working day still gets the final state; a browser back after weeks
 * is not shown a notification about an activity long over (the Web Push maximum would be 28 days).
 */
export const END_LIFETIME_MS = 24 * 3600 * 1000;

export function webLiveActivityContent(push: LiveActivityPush, place: ReaderPlace): PushContent {
  const fields = push.fields;
  const lines: string[] = [];
  if (push.alert && !repeatsState(push))
    lines.push(push.alert.body ? `${push.alert.title}: ${push.alert.body}` : push.alert.title);
  if (push.template === 'progress') lines.push(textBar(Number(fields.progress), 1));
  if (push.template === 'steps') lines.push(textBar(Number(fields.currentStep), Number(fields.totalSteps)));
  const text = liveActivityStateText(push.template, fields, place);
  lines.push(push.template === 'status' ? `${stateMarks[fields.state as StatusState]} ${text}` : text);
  // A shown notification cannot turn stale by itself, so it says from when its content is out of date.
  if (push.event !== 'end' && push.staleAt !== null)
    lines.push(`Out of date after ${clockTime(new Date(push.staleAt).toISOString(), place)}`);
  if (push.event === 'end') lines.push('Ended');
  const alerting = push.alert !== null;
  // The caller's priority wins, as for APNs: a `high` silent update must not wait at the push service either.
  const urgent = push.priority ? push.priority === 'high' : alerting;
  return {
    ...blankContent,
    notificationId: push.activityId,
    title: String(fields.title),
    body: lines.join('\n'),
    data: {
      clarion: 'live_activity',
      event: push.event,
      activityId: push.activityId,
      template: push.template,
      timestamp: String(push.timestamp),
      alerting: String(alerting),
      ...(push.template === 'timer' && typeof fields.endsAt === 'string' ? { endsAt: fields.endsAt } : {}),
    },
    priority: urgent ? 'high' : 'normal',
    ...(push.event === 'end'
      ? { expiresAt: push.timestamp + END_LIFETIME_MS, topic: `${push.activityId}:end` }
      : { expiresAt: push.expiresAt }),
  };
}

/** The alert a start carries when the caller gave none only repeats the state the notification shows anyway. */
function repeatsState(push: LiveActivityPush): boolean {
  const fallback = defaultStartAlert(push.template, push.fields);
  return (
    push.event === 'start' &&
    push.alert !== null &&
    push.alert.title === fallback.title &&
    push.alert.body === fallback.body
  );
}

/** "▓▓▓▓░░░░░░": `done` of `total` in ten cells, in characters every notification can show. */
function textBar(done: number, total: number): string {
  const filled = Math.max(0, Math.min(BAR_CELLS, Math.round((done / total) * BAR_CELLS)));
  return '▓'.repeat(filled) + '░'.repeat(BAR_CELLS - filled);
}
