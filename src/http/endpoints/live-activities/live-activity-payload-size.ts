import {
  apnsLiveActivityPayloadBytes,
  APNS_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES,
} from '../../../delivery/live-activities/apns-live-activity-payload.ts';
import {
  fcmLiveActivityPayloadBytes,
  FCM_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES,
} from '../../../delivery/live-activities/fcm-live-activity-data.ts';
import { everyPushVariant, type LiveActivityPush } from '../../../delivery/live-activities/live-activity-push.ts';
import { webLiveActivityContent } from '../../../delivery/live-activities/web-live-activity-message.ts';
import { encryptedWebPushBytes, WEB_PUSH_MAX_BODY_BYTES } from '../../../delivery/web-push/web-push-encryption.ts';
import { serializeWebPushMessage } from '../../../delivery/web-push/web-push-message.ts';
import { RECEIPT_LENGTH } from '../../../domain/receipt.ts';
import { ApiError } from '../../api-error.ts';

/**
 * Refuses a lifecycle event whose APNs, FCM or Web Push payload would be over the provider's 4,096 bytes with 413, before
 * anything is stored or charged (as for notifications, platform-payload-size.ts): the template bounds keep fields
 * small, but a long alert in a script of 4-byte characters could still pass. Built by the delivery's own builders.
 */
export function assertLiveActivityPayloadsFit(push: LiveActivityPush, baseUrl: string): void {
  // A push with an alert may carry a device's receipt (LiveActivityPush.receipt): measured with room for one.
  const measured = push.alert === null ? push : { ...push, receipt: RECEIPT_ROOM };
  for (const { tag, push: variant } of everyPushVariant(measured)) assertVariantFits(variant, tag, baseUrl);
}

const RECEIPT_ROOM = 'r'.repeat(RECEIPT_LENGTH);

/** One language of the alert (`tag`, null for its own text), on every platform. */
function assertVariantFits(push: LiveActivityPush, tag: string | null, baseUrl: string): void {
  const sizes = [
    {
      platform: 'ios',
      payloadBytes: apnsLiveActivityPayloadBytes(push),
      limitBytes: APNS_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES,
    },
    {
      platform: 'android',
      payloadBytes: fcmLiveActivityPayloadBytes(push),
      limitBytes: FCM_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES,
    },
    // The web text depends on the subscriber's zone and language only in a timer's "Ends at 14:30", a few bytes either
    // way from the UTC text measured here.
    {
      platform: 'web',
      payloadBytes: encryptedWebPushBytes(
        serializeWebPushMessage(webLiveActivityContent(push, { timeZone: null, locale: null }), baseUrl).length,
      ),
      limitBytes: WEB_PUSH_MAX_BODY_BYTES,
    },
  ];
  const over = sizes.find((size) => size.payloadBytes > size.limitBytes);
  if (over) {
    throw new ApiError('payload_too_large', {
      message: `The ${providerNames[over.platform]} payload would be ${over.payloadBytes} bytes, over its ${over.limitBytes}-byte limit: shorten the alert or the fields.`,
      details: { limit: 'platform_payload', ...over, ...(tag === null ? {} : { localization: tag }) },
    });
  }
}

const providerNames: Record<string, string> = { ios: 'APNs', android: 'FCM', web: 'Web Push' };
