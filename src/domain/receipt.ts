import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A receipt: the proof, carried by one push, that a device got that push, which the device hands back with what the
 * person did (POST /api/v1/receipts; docs/engagement.md). It binds one notification to one subscriber under a MAC
 * keyed by the instance's secret key, so it cannot be made for another pair, and needs no API key: a publishable key,
 * which is public, could not inflate counts with it.
 *
 *   n<notification ULID, 26><subscriber ULID, 26><HMAC-SHA256 of the first 53 characters, first 16 bytes, base64url>
 *
 * 75 URL-safe characters. The leading kind names what the receipt is for: `n` a notification, `a` a Live Activity
 * (its pushes with an alert; then the ULID is the activity's). The ids inside are not secret: the app already knows
 * its subscriber id, and the notification or activity is its own.
 */
export const RECEIPT_LENGTH = 75;

/** The member, data key or custom key a push carries its receipt in (APNs, FCM `data`, Web Push JSON). */
export const RECEIPT_FIELD = 'clarionReceipt';

export const receiptEvents = ['received', 'opened', 'dismissed', 'action'] as const;
export type ReceiptEvent = (typeof receiptEvents)[number];

const KIND_NOTIFICATION = 'n';
const KIND_LIVE_ACTIVITY = 'a';
const ULID_LENGTH = 26;
const MAC_BYTES = 16;
const ULID = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** The receipts' own key, derived from the instance key so that no other use of that key can produce a receipt MAC. */
export function receiptKey(secretKey: Buffer): Buffer {
  return createHmac('sha256', secretKey).update('clarion receipts v1').digest();
}

export function mintReceipt(key: Buffer, notificationId: string, subscriberId: string): string {
  return signedReceipt(key, KIND_NOTIFICATION, notificationId, subscriberId);
}

/** The receipt of one device's push of a Live Activity (the pushes it is shown: those with an alert). */
export function mintLiveActivityReceipt(key: Buffer, liveActivityId: string, subscriberId: string): string {
  return signedReceipt(key, KIND_LIVE_ACTIVITY, liveActivityId, subscriberId);
}

function signedReceipt(key: Buffer, kind: string, subjectId: string, subscriberId: string): string {
  const signed = `${kind}${idBody(subjectId)}${idBody(subscriberId)}`;
  return `${signed}${mac(key, signed)}`;
}

/** What a genuine receipt names: a notification's or a Live Activity's push to one subscriber. */
export type OpenedReceipt =
  | { kind: 'notification'; notificationId: string; subscriberId: string }
  | { kind: 'liveActivity'; liveActivityId: string; subscriberId: string };

/** The pair a genuine receipt names, or null for anything else (forged, altered, truncated, an unknown kind). */
export function openReceipt(key: Buffer, receipt: string): OpenedReceipt | null {
  const kind = receipt[0];
  if (receipt.length !== RECEIPT_LENGTH || (kind !== KIND_NOTIFICATION && kind !== KIND_LIVE_ACTIVITY)) return null;
  const signed = receipt.slice(0, 1 + 2 * ULID_LENGTH);
  // Compared as text: decoding first would accept the variants of the last character that decode to the same bytes.
  const given = Buffer.from(receipt.slice(signed.length));
  const expected = Buffer.from(mac(key, signed));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const subject = signed.slice(1, 1 + ULID_LENGTH);
  const subscriber = signed.slice(1 + ULID_LENGTH);
  if (!ULID.test(subject) || !ULID.test(subscriber)) return null;
  const subscriberId = `sub_${subscriber}`;
  return kind === KIND_NOTIFICATION
    ? { kind: 'notification', notificationId: `ntf_${subject}`, subscriberId }
    : { kind: 'liveActivity', liveActivityId: `lva_${subject}`, subscriberId };
}

function mac(key: Buffer, signed: string): string {
  return createHmac('sha256', key).update(signed).digest().subarray(0, MAC_BYTES).toString('base64url');
}

/** `ntf_01h…` → `01h…`: ids are a prefix, `_`, and a 26-character ULID (domain/ids.ts). */
function idBody(id: string): string {
  return id.slice(id.indexOf('_') + 1);
}
