import { createHash } from 'node:crypto';
import type { PushContent } from '../push-content.ts';

/**
 * PushContent → what a browser receives, and the RFC 8030 headers that go with it (docs/web-push.md, "What the
 * browser receives"; docs/protocols.md 4.5). Pure: the time is passed in.
 *
 * The message is a declarative push message (W3C Push API, https://w3c.github.io/push-api/#declarative-push-message;
 * WebKit, https://webkit.org/blog/16535/meet-declarative-web-push/): `"web_push": 8030` and a `notification` the
 * browser can show by itself. Safari 18.4 and later (macOS, and Home Screen web apps on iOS and iPadOS) shows it
 * without running the service worker, so a subscription whose worker did not run is not dropped; `mutable` still lets
 * the service worker show its own. Every other browser hands the same JSON to the service worker as a classic push,
 * and web-sdk/clarion-sw.js reads it there.
 */
export interface WebPushMessage {
  web_push: typeof DECLARATIVE_WEB_PUSH;
  notification: DeclarativeNotification;
  /** The notification's badge number: the app badge (Badging API), not the Notification `badge` image. Absent when not set. */
  app_badge?: number;
  /** The service worker may replace the notification with its own (clarion-sw.js does, to open the url on a click). */
  mutable: true;
}

export interface DeclarativeNotification {
  /** Required by the format: the notification's title, or "" when it has none. */
  title: string;
  body?: string;
  /** The language of a localized variant's title and body (its BCP 47 tag), for the browser's text rendering. */
  lang?: string;
  /** Required by the format: opened on a click. The notification's url, else `fallbackUrl` (the instance's base URL). */
  navigate: string;
  /** The notification id: a repeat replaces the shown notification instead of adding one. */
  tag: string;
  /** The notification's imageUrl: a large image shown with it. */
  image?: string;
  /** The notification's iconUrl: the small icon beside the text. */
  icon?: string;
  /**
   * The action buttons (https://notifications.spec.whatwg.org/#dictdef-notificationaction): `action` is the id a click
   * reports; `navigate`, which the declarative format requires of each, is the button's url, else the notification's.
   */
  actions?: Array<{ action: string; title: string; navigate: string }>;
  /**
   * `notification.data` of the shown notification: `clarion` marks it as Clarion's, `data` is the caller's data as
   * sent, and `url: null` says the notification has no url of its own, so the service worker opens its own scope (a
   * join page: the page itself) rather than `navigate`. `actionUrls`: the buttons that have a url of their own, by id;
   * clarion-sw.js opens nothing on a click of another (it reports the action, for the caller's server to act on).
   */
  data: { clarion: true; url?: null; data?: Record<string, string>; actionUrls?: Record<string, string> };
}

export const DECLARATIVE_WEB_PUSH = 8030;

/**
 * Fields without a value are left out (title and navigate excepted, which the format requires), so the message stays
 * within the 3,993 bytes of clear text a 4,096-byte encrypted body leaves.
 */
export function buildWebPushMessage(content: PushContent, fallbackUrl: string): WebPushMessage {
  const navigate = content.url ?? fallbackUrl;
  const actionUrls = Object.fromEntries(
    (content.actions ?? []).flatMap(({ id, url }) => (url === undefined ? [] : [[id, url]])),
  );
  return {
    web_push: DECLARATIVE_WEB_PUSH,
    notification: {
      title: content.title ?? '',
      ...(content.body !== null ? { body: content.body } : {}),
      ...(content.lang !== undefined ? { lang: content.lang } : {}),
      navigate,
      tag: content.notificationId,
      ...(content.imageUrl !== null ? { image: content.imageUrl } : {}),
      ...(content.iconUrl !== null ? { icon: content.iconUrl } : {}),
      ...(content.actions !== null
        ? {
            actions: content.actions.map(({ id, title, url }) => ({ action: id, title, navigate: url ?? navigate })),
          }
        : {}),
      data: {
        clarion: true,
        ...(content.url === null ? { url: null } : {}),
        ...(content.data !== null ? { data: content.data } : {}),
        ...(Object.keys(actionUrls).length > 0 ? { actionUrls } : {}),
      },
    },
    ...(content.badge !== null ? { app_badge: content.badge } : {}),
    mutable: true,
  };
}

/** The clear text encrypted for the browser: JSON, UTF-8. */
export function serializeWebPushMessage(content: PushContent, fallbackUrl: string): Buffer {
  return Buffer.from(JSON.stringify(buildWebPushMessage(content, fallbackUrl)), 'utf8');
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
