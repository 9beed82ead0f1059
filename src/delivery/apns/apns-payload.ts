import { createHash } from 'node:crypto';
import { ACTIONS_FIELD } from '../../domain/notification-content.ts';
import type { PushContent } from '../push-content.ts';

/**
 * PushContent → APNs alert request body and headers (docs/protocols.md 1.3). Pure: the time for apns-expiration is passed
 * in, so the same content always gives the same bytes.
 */

/** Largest body APNs accepts for an alert push; larger gets 413 PayloadTooLarge (docs/protocols.md 1.3). */
export const APNS_MAX_PAYLOAD_BYTES = 4096;
/** APNs stores an undelivered push at most 30 days (docs/protocols.md 1.3, apns-expiration). */
export const APNS_MAX_EXPIRATION_SECONDS = 30 * 24 * 3600;
/** apns-collapse-id limit; longer gets 400 BadCollapseId (docs/protocols.md 1.3). */
export const APNS_MAX_COLLAPSE_ID_BYTES = 64;

/** Custom top-level keys Clarion itself sets; caller data with these names is overridden by the content fields. */
export const APNS_URL_KEY = 'url';
export const APNS_IMAGE_URL_KEY = 'imageUrl';

export interface ApnsPayloadOptions {
  /**
   * aps.thread-id: iOS groups notifications with the same thread id. The caller passes the channel code, so each
   * channel forms its own group in Notification Center. Omitted when null/undefined.
   */
  threadId?: string | null;
  /**
   * The push carries a receipt (domain/receipt.ts, spliced in by apns-client.ts): mutable-content 1, so that the app's
   * Notification Service Extension runs and can report `received` (docs/engagement.md).
   */
  withReceipt?: boolean;
}

export interface ApnsHeaderOptions {
  /** CLARION_APNS_TOPIC, the app's bundle id. */
  topic: string;
  /** Current time in ms (clock.now()), for apns-expiration. */
  now: number;
}

export type ApnsPayload = Record<string, unknown> & { aps: Record<string, unknown> };

export function buildApnsPayload(content: PushContent, options: ApnsPayloadOptions = {}): ApnsPayload {
  // A background push's aps holds content-available alone (docs/protocols.md 1.3, "Background pushes").
  if (content.contentAvailable) return withCustomKeys(content, { 'content-available': 1 });
  const aps: Record<string, unknown> = {};
  const alert: Record<string, string> = {};
  if (content.title !== null) alert.title = content.title;
  if (content.subtitle !== null) alert.subtitle = content.subtitle;
  if (content.body !== null) alert.body = content.body;
  if (Object.keys(alert).length > 0) aps.alert = alert;
  if (content.sound !== null) aps.sound = content.sound;
  if (content.badge !== null) aps.badge = content.badge;
  if (options.threadId) aps['thread-id'] = options.threadId;
  // The alert options of Apple's payload reference (docs/protocols.md 1.3).
  if (content.category !== null) aps.category = content.category;
  if (content.interruptionLevel !== null) aps['interruption-level'] = content.interruptionLevel;
  if (content.relevanceScore !== null) aps['relevance-score'] = content.relevanceScore;
  if (content.targetContentId !== null) aps['target-content-id'] = content.targetContentId;
  // The image is downloaded and attached on the device by the app's Notification Service Extension, which iOS only
  // runs when mutable-content is 1; the same extension reports a receipt's `received` and gives the notification its
  // action buttons (docs/engagement.md).
  if (content.imageUrl !== null || options.withReceipt || content.actions !== null) aps['mutable-content'] = 1;
  return withCustomKeys(content, aps);
}

/** The custom keys beside `aps`: the caller's data, then the url, the image url and the action buttons. */
function withCustomKeys(content: PushContent, aps: Record<string, unknown>): ApnsPayload {
  const payload: Record<string, unknown> = {};
  // Caller data first, so the first-class fields below win a name clash; `aps` is Apple's and is never taken from
  // data (a data key "aps" is dropped).
  for (const [key, value] of Object.entries(content.data ?? {})) {
    if (key !== 'aps') payload[key] = value;
  }
  if (content.url !== null) payload[APNS_URL_KEY] = content.url;
  if (content.imageUrl !== null) payload[APNS_IMAGE_URL_KEY] = content.imageUrl;
  if (content.actions !== null) payload[ACTIONS_FIELD] = content.actions;
  payload.aps = aps;
  return payload as ApnsPayload;
}

export function serializeApnsPayload(content: PushContent, options: ApnsPayloadOptions = {}): string {
  return JSON.stringify(buildApnsPayload(content, options));
}

/**
 * Size of the body APNs would receive, in bytes of UTF-8 JSON, for the API to refuse anything over
 * APNS_MAX_PAYLOAD_BYTES with 413 before accepting a notification. Pass the same threadId the send will use.
 */
export function apnsPayloadBytes(content: PushContent, options: ApnsPayloadOptions = {}): number {
  return Buffer.byteLength(serializeApnsPayload(content, options), 'utf8');
}

export function buildApnsHeaders(content: PushContent, options: ApnsHeaderOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'apns-push-type': content.contentAvailable ? 'background' : 'alert',
    'apns-topic': options.topic,
    // 10 = deliver now; 5 = power-aware, may be grouped or delayed (docs/protocols.md 1.3). Alert pushes may use either;
    // a background push must use 5.
    'apns-priority': content.priority === 'high' && !content.contentAvailable ? '10' : '5',
    'apns-collapse-id': apnsCollapseId(content.notificationId),
  };
  const expiration = apnsExpiration(content.ttlSeconds, options.now, content.expiresAt ?? null);
  if (expiration !== null) headers['apns-expiration'] = expiration;
  return headers;
}

/**
 * apns-expiration (epoch seconds, docs/protocols.md 1.3):
 * - ttl 0 → "0": APNs tries once and does not store the push;
 * - `expiresAt` given (the notification's due time + ttl, push-expiry.ts) → that moment, in whole seconds, so
 *   a push retried later keeps its original deadline instead of a fresh TTL; capped at 30 days from now;
 * - ttl > 0 without `expiresAt` → now + ttl, capped at 30 days, the longest APNs stores anything;
 * - ttl null (no TTL given) → now + 30 days: "keep it as long as the provider allows", the same rule as FCM's own
 *   APNs default (30 days) and Android's default TTL (4 weeks), instead of relying on an undocumented APNs default.
 */
export function apnsExpiration(ttlSeconds: number | null, now: number, expiresAt: number | null = null): string | null {
  if (ttlSeconds === 0) return '0';
  const nowSeconds = Math.floor(now / 1000);
  if (expiresAt !== null)
    return String(
      Math.min(Math.max(Math.floor(expiresAt / 1000), nowSeconds + 1), nowSeconds + APNS_MAX_EXPIRATION_SECONDS),
    );
  const ttl =
    ttlSeconds === null
      ? APNS_MAX_EXPIRATION_SECONDS
      : Math.min(Math.max(Math.floor(ttlSeconds), 1), APNS_MAX_EXPIRATION_SECONDS);
  return String(nowSeconds + ttl);
}

/**
 * The notification id is the collapse id, so a repeat after a crash replaces rather than duplicates (docs/design.md 3.3).
 * Clarion ids are ~30 bytes; anything over APNs' 64-byte limit is replaced by its SHA-256 hex (exactly 64 bytes,
 * still one value per id) rather than truncated, which could make two ids collide.
 */
export function apnsCollapseId(notificationId: string): string {
  if (Buffer.byteLength(notificationId, 'utf8') <= APNS_MAX_COLLAPSE_ID_BYTES) return notificationId;
  return createHash('sha256').update(notificationId).digest('hex');
}
