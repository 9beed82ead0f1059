import type { LiveActivityPush } from '../live-activities/live-activity-push.ts';
import { FCM_MAX_PAYLOAD_BYTES, type FcmDataOptions } from './fcm-message.ts';

/**
 * LiveActivityPush → the FCM data message an Android app renders as one ongoing notification (docs/protocols.md 3.6).
 * Pure. Data values must be strings (docs/protocols.md 3.3), so `fields` and `alert` travel as JSON text:
 *
 *   {clarion: "live_activity", event: "start" | "update" | "end", activityId, template, fields: "<JSON>",
 *    timestamp: "<epoch seconds>", alert?: "<JSON {title, body?}>", staleAt?: ISO, dismissAt?: ISO (end)}
 *
 * `timestamp` is the same strictly increasing value as APNs' `aps.timestamp`: FCM may deliver an older message after a
 * newer one, and the app drops anything older than what it shows. The app keys its notification on `activityId`.
 */
export const FCM_LIVE_ACTIVITY_MARKER = 'live_activity';

export function buildFcmLiveActivityData(push: LiveActivityPush): Record<string, string> {
  const data: Record<string, string> = {
    clarion: FCM_LIVE_ACTIVITY_MARKER,
    event: push.event,
    activityId: push.activityId,
    template: push.template,
    fields: JSON.stringify(push.fields),
    timestamp: String(push.timestamp),
  };
  if (push.alert) data.alert = JSON.stringify(push.alert);
  if (push.event !== 'end' && push.staleAt !== null) data.staleAt = new Date(push.staleAt).toISOString();
  if (push.event === 'end' && push.dismissAt !== null) data.dismissAt = new Date(push.dismissAt).toISOString();
  return data;
}

/**
 * HIGH priority so the app is woken to update its notification at once (docs/protocols.md 3.6), for every event: a
 * silent iOS update may wait, but an Android app that is not woken shows stale progress. The collapse key is the
 * activity id: FCM keeps only the newest undelivered message of an activity for an offline device.
 */
export function fcmLiveActivityOptions(push: LiveActivityPush): FcmDataOptions {
  return { priority: 'high', collapseKey: push.activityId };
}

/** FCM's size measure (keys and values, docs/protocols.md 3.3) of the data and its android block. */
export function fcmLiveActivityPayloadBytes(push: LiveActivityPush): number {
  const entries = Object.entries(buildFcmLiveActivityData(push));
  const data = entries.reduce((sum, [key, value]) => sum + Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8'), 0);
  // android: {priority: "HIGH", collapse_key: <activity id>}
  return data + 'priority'.length + 'HIGH'.length + 'collapse_key'.length + Buffer.byteLength(push.activityId, 'utf8');
}

export const FCM_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES = FCM_MAX_PAYLOAD_BYTES;
