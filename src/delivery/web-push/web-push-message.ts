import { createHash } from 'node:crypto';
import type { PushContent } from '../push-content.ts';

/**
 * PushContent → what a browser's service worker receives, and the RFC 8030 headers that go with it (docs/web-push.md,
 * "What the service worker receives"; docs/protocols.md 4.5). Pure: the time is passed in.
 */
export interface WebPushMessage {
  /** title, body and url are always there (null when the notification has none). */
  title: string | null;
  body: string | null;
  /** Opened (or focused) when the notification is clicked. */
  url: string | null;
  /** The notification's imageUrl: a large image shown with it (Notification `image`). Absent when not set. */
  image?: string;
  /** The notification's iconUrl: the small icon beside the text (Notification `icon`). Absent when not set. */
  icon?: string;
  /** The notification's badge number, for `navigator.setAppBadge()` (not the Notification `badge` image). Absent when not set. */
  badge?: number;
  /** The caller's data, as sent. Absent when not set. */
  data?: Record<string, string>;
  /** The notification id: as the Notification `tag`, a repeat replaces the shown notification instead of adding one. */
  tag: string;
}

/**
 * Fields without a value are left out (title, body and url excepted), so the message stays within the 3,993 bytes of
 * clear text a 4,096-byte encrypted body leaves: as close as possible to what APNs and FCM carry for the same content.
 */
export function buildWebPushMessage(content: PushContent): WebPushMessage {
  return {
    title: content.title,
    body: content.body,
    url: content.url,
    ...(content.imageUrl !== null ? { image: content.imageUrl } : {}),
    ...(content.iconUrl !== null ? { icon: content.iconUrl } : {}),
    ...(content.badge !== null ? { badge: content.badge } : {}),
    ...(content.data !== null ? { data: content.data } : {}),
    tag: content.notificationId,
  };
}

/** The clear text encrypted for the browser: JSON, UTF-8. */
export function serializeWebPushMessage(content: PushContent): Buffer {
  return Buffer.from(JSON.stringify(buildWebPushMessage(content)), 'utf8');
}

/** The longest TTL sent: 28 days, Clarion's own ttlSeconds maximum and web-push's default (docs/protocols.md 4.5). */
export const WEB_PUSH_MAX_TTL_SECONDS = 28 * 24 * 3600;
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;

export function buildWebPushHeaders(content: PushContent, now: number): Record<string, string> {
  return {
    ttl: String(webPushTtl(content.ttlSeconds, now, content.expiresAt ?? null)),
    // RFC 8030 §5.3: high may wake a device on battery; normal lets it wait. Clarion's priority maps one to one.
    urgency: content.priority === 'high' ? 'high' : 'normal',
    topic: webPushTopic(content.topic ?? content.notificationId),
    'content-encoding': 'aes128gcm',
    'content-type': 'application/octet-stream',
  };
}

/**
 * TTL in seconds (RFC 8030 §5.2), counted from the notification's due time like apns-expiration (push-expiry.ts):
 * - ttl 0 → 0: deliver now or never;
 * - `expiresAt` given → what is left of it, at least 1 s (a push past it is never sent, push-expiry.ts);
 * - ttl > 0 without `expiresAt` → ttl;
 * - no ttl → 28 days, the longest Clarion allows.
 */
export function webPushTtl(ttlSeconds: number | null, now: number, expiresAt: number | null): number {
  if (ttlSeconds === 0) return 0;
  if (expiresAt !== null) return Math.min(Math.max(Math.ceil((expiresAt - now) / 1000), 1), WEB_PUSH_MAX_TTL_SECONDS);
  return Math.min(ttlSeconds ?? WEB_PUSH_MAX_TTL_SECONDS, WEB_PUSH_MAX_TTL_SECONDS);
}

/**
 * Topic (RFC 8030 §5.4): the notification id (or the content's own `topic`), so a repeat of the same push replaces the
 * undelivered one at the push service instead of queuing twice. Ids are 30 base64url-safe characters (ntf_<ulid>);
 * anything else becomes 32 characters of its SHA-256, base64url, still one topic per id.
 */
export function webPushTopic(notificationId: string): string {
  if (TOPIC.test(notificationId)) return notificationId;
  return createHash('sha256').update(notificationId).digest('base64url').slice(0, 32);
}
