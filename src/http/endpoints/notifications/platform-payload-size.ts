import { apnsPayloadBytes, APNS_MAX_PAYLOAD_BYTES } from '../../../delivery/apns/apns-payload.ts';
import { everyVariant, type PushContent } from '../../../delivery/push-content.ts';
import { fcmPayloadBytes, FCM_MAX_PAYLOAD_BYTES } from '../../../delivery/fcm/fcm-message.ts';
import { encryptedWebPushBytes, WEB_PUSH_MAX_BODY_BYTES } from '../../../delivery/web-push/web-push-encryption.ts';
import { serializeWebPushMessage } from '../../../delivery/web-push/web-push-message.ts';
import { RECEIPT_MEMBER_BYTES } from '../../../delivery/receipt-member.ts';
import { idPrefixes } from '../../../domain/ids.ts';
import { RECEIPT_LENGTH } from '../../../domain/receipt.ts';
import { contentAsStored, type RequestedContent } from '../../../domain/notification-content.ts';
import { ApiError } from '../../api-error.ts';

const PROVIDER_NAMES: Record<string, string> = { ios: 'APNs', android: 'FCM', web: 'Web Push (encrypted)' };

/** A notification id's length: the payloads carry it (the APNs collapse id, the FCM tag, the Web Push tag). */
const ID_OF_REAL_LENGTH = `${idPrefixes.notification}_${'0'.repeat(26)}`;

/** A receipt of the real length: every payload keeps room for one, whether or not the account has receipts on. */
const RECEIPT_OF_REAL_LENGTH = 'r'.repeat(RECEIPT_LENGTH);

/**
 * Refuses a notification whose rendered platform payload would be over APNs', FCM's or Web Push's 4,096-byte limit, with 413
 * before anything is stored or charged: otherwise every push of it would be rejected by the provider later. The
 * payloads are built by the same builders the delivery engine uses, with an id and a receipt of the real length.
 */
export function assertPlatformPayloadsFit(content: RequestedContent, channelCode: string, baseUrl: string): void {
  // Each localized variant is a payload of its own (push-content.ts).
  for (const push of everyVariant({ notificationId: ID_OF_REAL_LENGTH, ...contentAsStored(content) }))
    assertPayloadsFit(push, channelCode, baseUrl);
}

function assertPayloadsFit(push: PushContent, channelCode: string, baseUrl: string): void {
  const sizes = [
    {
      platform: 'ios',
      payloadBytes: apnsPayloadBytes(push, { threadId: channelCode, withReceipt: true }) + RECEIPT_MEMBER_BYTES,
      limitBytes: APNS_MAX_PAYLOAD_BYTES,
    },
    {
      platform: 'android',
      payloadBytes: fcmPayloadBytes(push, { receipt: RECEIPT_OF_REAL_LENGTH }),
      limitBytes: FCM_MAX_PAYLOAD_BYTES,
    },
    // What the push service receives: the message encrypted for the browser (RFC 8291 adds 103 bytes). A silent push
    // is never sent to a browser (domain/skip-reasons.ts).
    ...(push.contentAvailable
      ? []
      : [
          {
            platform: 'web',
            payloadBytes: encryptedWebPushBytes(serializeWebPushMessage(push, baseUrl).length + RECEIPT_MEMBER_BYTES),
            limitBytes: WEB_PUSH_MAX_BODY_BYTES,
          },
        ]),
  ];
  const over = sizes.find((size) => size.payloadBytes > size.limitBytes);
  if (over) {
    throw new ApiError('payload_too_large', {
      message: `The ${PROVIDER_NAMES[over.platform]} payload${push.lang ? ` in ${push.lang}` : ''} would be ${over.payloadBytes} bytes, over its ${over.limitBytes}-byte limit: shorten the title, body or data.`,
      details: { limit: 'platform_payload', ...over, ...(push.lang ? { localization: push.lang } : {}) },
    });
  }
}
