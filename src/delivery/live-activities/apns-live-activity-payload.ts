import { defaultStartAlert, type LiveActivityAlert } from '../../domain/live-activities/live-activity-alert.ts';
import { apnsTimestampSeconds } from '../../domain/live-activities/live-activity-lifecycle.ts';
import { templateAttributesTypes } from '../../domain/live-activities/live-activity-templates.ts';
import { RECEIPT_FIELD } from '../../domain/receipt.ts';
import type { LiveActivityPush } from './live-activity-push.ts';
import { apnsLiveActivityTopic } from '../apns/apns-client.ts';
import { APNS_MAX_PAYLOAD_BYTES } from '../apns/apns-payload.ts';

/**
 * LiveActivityPush → APNs Live Activity request body and headers (docs/protocols.md 2.1, 2.2). Pure.
 *
 * start:  {"aps": {timestamp, event: "start", content-state, attributes-type, attributes: {activityId}, alert,
 *          input-push-token: 1 | input-push-channel: <channel id>, stale-date?, relevance-score?}}
 *                                                                → the subscriber's push-to-start token
 * update: {"aps": {timestamp, event: "update", content-state, alert?, stale-date?, relevance-score?}}
 * end:    {"aps": {timestamp, event: "end", content-state, alert?, dismissal-date?, relevance-score?}}
 * alert:  {title, body?, sound?}
 * content-state carries `clarionReceipt` beside the fields when the push has a receipt (LiveActivityPush.receipt).
 *                                                                → the per-activity token the device reported
 */

/** Live Activity content state is limited to 4 KB and the whole push to APNs' 4,096 bytes (docs/protocols.md 1.3). */
export const APNS_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES = APNS_MAX_PAYLOAD_BYTES;

export type ApnsLiveActivityPayload = { aps: Record<string, unknown> };

const seconds = (ms: number) => Math.floor(ms / 1000);

export function buildApnsLiveActivityPayload(push: LiveActivityPush): ApnsLiveActivityPayload {
  const aps: Record<string, unknown> = {
    timestamp: apnsTimestampSeconds(push.timestamp),
    event: push.event,
    // ActivityKit hands the app the content state only, never the rest of the payload: a receipt travels inside it,
    // where the widget and the app can read it (docs/engagement.md, "Live Activities").
    'content-state': push.receipt === undefined ? push.fields : { ...push.fields, [RECEIPT_FIELD]: push.receipt },
  };
  if (push.event === 'start') {
    // The app's ActivityAttributes type by name, its static attributes (the Clarion id, so the app can report the
    // activity's update token for it), and the request that the system mint that token (input-push-token, iOS 18+).
    aps['attributes-type'] = templateAttributesTypes[push.template];
    aps.attributes = { activityId: push.activityId };
    // APNs requires an alert on start; the API always sets one, the fallback keeps an old snapshot sendable.
    aps.alert = alertOf(push.alert ?? defaultStartAlert(push.template, push.fields));
    // iOS 18 broadcast: subscribe the activity to the channel; otherwise ask for a per-activity update token.
    if (push.inputPushChannel) aps['input-push-channel'] = push.inputPushChannel;
    else aps['input-push-token'] = 1;
  } else if (push.alert) {
    aps.alert = alertOf(push.alert);
  }
  if (push.event !== 'end' && push.staleAt !== null) aps['stale-date'] = seconds(push.staleAt);
  if (push.event === 'end' && push.dismissAt !== null) aps['dismissal-date'] = seconds(push.dismissAt);
  // ActivityContent's relevance defaults to 0 when a content update omits it, so every event repeats the stored one.
  if (push.relevanceScore !== null) aps['relevance-score'] = push.relevanceScore;
  return { aps };
}

export function serializeApnsLiveActivityPayload(push: LiveActivityPush): string {
  return JSON.stringify(buildApnsLiveActivityPayload(push));
}

export function apnsLiveActivityPayloadBytes(push: LiveActivityPush): number {
  return Buffer.byteLength(serializeApnsLiveActivityPayload(push), 'utf8');
}

/**
 * The caller's choice first: `high` → 10 (delivered at once, counts against the device's Live Activity budget),
 * `low` → 5 (opportunistic, no budget), so a progress bar that must move now can ask for 10 without an alert.
 * Without one: 10 for start, end and updates the user is alerted to; 5 for silent updates (docs/protocols.md 2.4).
 * A start is always 10: push-to-start is delivered at once or not at all.
 */
export function apnsLiveActivityPriority(push: LiveActivityPush): '10' | '5' {
  if (push.event !== 'start' && push.priority) return push.priority === 'high' ? '10' : '5';
  return push.event === 'update' && push.alert === null ? '5' : '10';
}

/** `bundleTopic` is CLARION_APNS_TOPIC; the push goes to `<bundle>.push-type.liveactivity` (docs/protocols.md 2.1). */
export function buildApnsLiveActivityHeaders(push: LiveActivityPush, bundleTopic: string): Record<string, string> {
  return {
    'apns-push-type': 'liveactivity',
    'apns-topic': apnsLiveActivityTopic(bundleTopic),
    'apns-priority': apnsLiveActivityPriority(push),
    // Past the activity's 8 hours nothing can show it, so APNs need not keep the push longer (docs/protocols.md 1.3).
    'apns-expiration': String(seconds(push.expiresAt)),
  };
}

/** APNs wants a Live Activity's sound inside `alert` (docs/protocols.md 2.2), unlike a notification's `aps.sound`. */
/**
 * A broadcast (update or end) on a channel (docs/protocols.md 2.5): `apns-channel-id` instead of a token in the path,
 * the same push type, topic and priority as a push to a token. `apns-expiration` is 0: clients send 0, one reports a
 * later time refused on channels that store nothing, and a channel that stores the most recent message (Clarion's,
 * apns-broadcast.ts) already hands it to devices that come back.
 */
export function buildApnsBroadcastHeaders(
  push: LiveActivityPush,
  bundleTopic: string,
  channelId: string,
): Record<string, string> {
  return {
    'apns-channel-id': channelId,
    'apns-push-type': 'liveactivity',
    'apns-topic': apnsLiveActivityTopic(bundleTopic),
    'apns-priority': apnsLiveActivityPriority(push),
    'apns-expiration': '0',
  };
}

function alertOf(alert: LiveActivityAlert): Record<string, string> {
  const aps: Record<string, string> = { title: alert.title };
  if (alert.body !== undefined) aps.body = alert.body;
  if (alert.sound !== undefined) aps.sound = alert.sound;
  return aps;
}
