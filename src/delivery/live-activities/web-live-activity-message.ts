import { liveActivityStateText, type ReaderPlace } from '../../domain/live-activity-text.ts';
import type { LiveActivityPush } from './live-activity-push.ts';

/**
 * LiveActivityPush → the Web Push message a browser's service worker shows (web-sdk/clarion-sw.js; docs/web-push.md,
 * "The service worker"; docs/live-activities.md, "Web"). Browsers have no Live Activities, so the web counterpart is
 * one notification per activity, replaced in place at every event: its `tag` is the activity id. Pure.
 *
 *   title  the activity's title
 *   body   an alert's text (start, alerting updates) over the state as text: a progress bar and "45 % · Packing",
 *          "Ends at 14:30 · Boarding" in the subscriber's own zone, "Ajax 2 – 1 PSV (2nd half)", "Step 2 of 4",
 *          and "Ended" on the end
 *   renotify  true when the event carries an alert: the browser alerts again; silent updates replace quietly
 *   data   {clarion: "live_activity", event, activityId, template, timestamp} for a site's own handlers
 *
 * A repeated or late push is harmless: the newest event replaces the notification, and the push service keeps only
 * the newest undelivered message of the activity (Topic, webLiveActivityOptions).
 */
export interface WebLiveActivityMessage {
  title: string;
  body: string;
  tag: string;
  renotify: boolean;
  /** A timer's end (epoch ms), which browsers may show beside the notification. */
  timestamp?: number;
  data: Record<string, string>;
}

const BAR_CELLS = 10;

export function buildWebLiveActivityMessage(push: LiveActivityPush, place: ReaderPlace): WebLiveActivityMessage {
  const fields = push.fields;
  const lines: string[] = [];
  if (push.alert) lines.push(push.alert.body ? `${push.alert.title}: ${push.alert.body}` : push.alert.title);
  if (push.template === 'progress') lines.push(textBar(Number(fields.progress), 1));
  if (push.template === 'steps') lines.push(textBar(Number(fields.currentStep), Number(fields.totalSteps)));
  lines.push(liveActivityStateText(push.template, fields, place));
  if (push.event === 'end') lines.push('Ended');
  return {
    title: String(fields.title),
    body: lines.join('\n'),
    tag: push.activityId,
    renotify: push.alert !== null,
    ...(push.template === 'timer' && typeof fields.endsAt === 'string' ? { timestamp: Date.parse(fields.endsAt) } : {}),
    data: { clarion: 'live_activity', event: push.event, activityId: push.activityId, template: push.template, timestamp: String(push.timestamp) },
  };
}

/** "▓▓▓▓░░░░░░": `done` of `total` in ten cells, in characters every notification can show. */
function textBar(done: number, total: number): string {
  const filled = Math.max(0, Math.min(BAR_CELLS, Math.round((done / total) * BAR_CELLS)));
  return '▓'.repeat(filled) + '░'.repeat(BAR_CELLS - filled);
}

/**
 * How the push service should carry it (RFC 8030): kept until the activity can no longer change (iOS ends every
 * activity 8 hours after its start, `expiresAt`); `high` urgency for an event that alerts, `normal` for a silent
 * update; and the activity id as Topic, so a newer event replaces one not yet delivered (ids are 30 characters of the
 * base64url alphabet, within the 32 allowed).
 */
export function webLiveActivityOptions(push: LiveActivityPush, now: number): { ttlSeconds: number; urgency: 'high' | 'normal'; topic: string } {
  return {
    ttlSeconds: Math.max(0, Math.ceil((push.expiresAt - now) / 1000)),
    urgency: push.alert !== null ? 'high' : 'normal',
    topic: push.activityId,
  };
}
