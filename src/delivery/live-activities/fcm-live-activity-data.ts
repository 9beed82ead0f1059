import { liveActivityDeliveryDeadline } from '../../domain/live-activities/live-activity-lifecycle.ts';
import { RECEIPT_FIELD } from '../../domain/receipt.ts';
import type { LiveActivityPush } from './live-activity-push.ts';
import { FCM_MAX_PAYLOAD_BYTES, FCM_MAX_TTL_SECONDS, type FcmDataOptions } from '../fcm/fcm-message.ts';

/**
 * LiveActivityPush → the FCM data message an Android app renders as one ongoing notification (docs/protocols.md 3.6).
 * Pure. Data values must be strings (docs/protocols.md 3.3), so `fields` and `alert` travel as JSON text:
 *
 *   {clarion: "live_activity", event: "start" | "update" | "end", activityId, template, fields: "<JSON>",
 *    timestamp: "<epoch ms>", alert?: "<JSON {title, body?}>", staleAt?: ISO, dismissAt?: ISO (end),
 *    clarionReceipt?: the device's receipt (LiveActivityPush.receipt)}
 *
 * `timestamp` is the event's, strictly increasing per activity (live-activity-lifecycle.ts nextPushTimestamp; APNs
 * gets it in seconds): FCM may deliver an older message after a newer one, and the app drops anything not newer than
 * what it shows. The app keys its notification on `activityId`.
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
  if (push.alert) {
    const { title, body, sound } = push.alert;
    data.alert = JSON.stringify({ title, body, sound });
  }
  if (push.receipt !== undefined) data[RECEIPT_FIELD] = push.receipt;
  if (push.event !== 'end' && push.staleAt !== null) data.staleAt = new Date(push.staleAt).toISOString();
  if (push.event === 'end' && push.dismissAt !== null) data.dismissAt = new Date(push.dismissAt).toISOString();
  return data;
}

/**
 * - HIGH priority so the app is woken to update its notification at once (docs/protocols.md 3.6), for every event: a
 *   silent iOS update may wait, but an Android app that is not woken shows stale progress.
 * - Not collapsible (no collapse_key): FCM lets a burst of 20 collapsible messages per app and device through and then
 *   one every 3 minutes, and holds at most 4 collapse keys per device (docs/protocols.md 3.5), so an activity updated
 *   more often would freeze on the device after its 20th message. Each message is delivered instead, and the app keeps
 *   the one with the newest `timestamp` (FCM does not keep order).
 * - android.ttl: the time left until the push is not worth delivering (liveActivityDeliveryDeadline: the activity's
 *   8 hours, and 4 more for the end), as APNs' apns-expiration and the web's TTL; FCM's default would be 4 weeks.
 */
export function fcmLiveActivityOptions(push: LiveActivityPush): FcmDataOptions {
  return { priority: 'high', expiresAt: liveActivityDeliveryDeadline(push.event, push.expiresAt) };
}

/** FCM's size measure (keys and values, docs/protocols.md 3.3) of the data and its android block. */
export function fcmLiveActivityPayloadBytes(push: LiveActivityPush): number {
  const entries = Object.entries(buildFcmLiveActivityData(push));
  const data = entries.reduce(
    (sum, [key, value]) => sum + Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8'),
    0,
  );
  // android: {priority: "HIGH", ttl: "<seconds>s"}, the TTL at its longest.
  return data + 'priority'.length + 'HIGH'.length + 'ttl'.length + `${FCM_MAX_TTL_SECONDS}s`.length;
}

export const FCM_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES = FCM_MAX_PAYLOAD_BYTES;
