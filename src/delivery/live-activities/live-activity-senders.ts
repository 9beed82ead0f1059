import type { ApnsClient } from '../apns/apns-client.ts';
import {
  APNS_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES,
  buildApnsLiveActivityHeaders,
  serializeApnsLiveActivityPayload,
} from './apns-live-activity-payload.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import type { FcmClient } from '../fcm/fcm-client.ts';
import { buildFcmLiveActivityData, fcmLiveActivityOptions } from './fcm-live-activity-data.ts';
import type { ReaderPlace } from '../../domain/live-activities/live-activity-text.ts';
import type { WebPushClient } from '../web-push/web-push-client.ts';
import type { LiveActivityPush } from './live-activity-push.ts';
import { webLiveActivityContent } from './web-live-activity-message.ts';

/**
 * The provider clients' Live Activity sends (PushSender.sendLiveActivity, wired in app-senders.ts): the pure
 * builders' output through the clients' existing raw paths, so pooling, JWT renewal and outcome mapping are the
 * notification path's own.
 */
export function sendApnsLiveActivity(
  client: ApnsClient,
  token: string,
  push: LiveActivityPush,
): Promise<DeliveryOutcome> {
  const body = serializeApnsLiveActivityPayload(push);
  // Refused here rather than by APNs, like alert pushes (apns-client.ts): the API checks the same size first.
  if (Buffer.byteLength(body, 'utf8') > APNS_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES)
    return Promise.resolve({ kind: 'rejected', reason: 'apns:PayloadTooLarge' });
  return client.sendRaw(token, buildApnsLiveActivityHeaders(push, client.topic), body);
}

export function sendFcmLiveActivity(
  client: FcmClient,
  token: string,
  push: LiveActivityPush,
): Promise<DeliveryOutcome> {
  return client.sendData(token, buildFcmLiveActivityData(push), fcmLiveActivityOptions(push));
}

/**
 * The browser's notification for the activity, through the Web Push client's notification path (size check and the
 * receipt's member included).
 */
export function sendWebLiveActivity(
  client: WebPushClient,
  token: string,
  push: LiveActivityPush,
  reader: ReaderPlace,
): Promise<DeliveryOutcome> {
  return client.send(token, webLiveActivityContent(push, reader), push.receipt);
}
