import type { PushContent } from '../push-content.ts';
import { ACTIONS_FIELD, isReservedFcmDataKey } from '../../domain/notification-content.ts';
import { RECEIPT_FIELD } from '../../domain/receipt.ts';

/**
 * PushContent → FCM HTTP v1 `messages:send` body (docs/protocols.md 3.2, 3.3). Pure. Only the Android parts: iOS goes to
 * APNs directly and the web to Web Push, so the `apns` and `webpush` blocks are never used.
 */

/** FCM's limit for a message to a token, counted over keys and values (docs/protocols.md 3.3). */
export const FCM_MAX_PAYLOAD_BYTES = 4096;
/** android.ttl maximum, also FCM's default: 4 weeks (docs/protocols.md 3.3). */
export const FCM_MAX_TTL_SECONDS = 2_419_200;
/** The data key that carries PushContent.url to the app. */
export const FCM_URL_KEY = 'url';

export interface FcmMessage {
  token: string;
  notification?: { title?: string; body?: string; image?: string };
  data?: Record<string, string>;
  android?: {
    priority: 'HIGH' | 'NORMAL';
    ttl?: string;
    collapse_key?: string;
    notification?: { tag: string; sound?: string; notification_count?: number; channel_id?: string };
  };
}

export interface FcmSendBody {
  message: FcmMessage;
}

/**
 * `now` (epoch ms) turns the content's `expiresAt` into the TTL left; required for content that has one. `receipt`:
 * the push's receipt (domain/receipt.ts), the first key of `data`.
 */
export function buildFcmMessage(
  token: string,
  content: PushContent,
  options: { now?: number; receipt?: string } = {},
): FcmSendBody {
  const message: FcmMessage = { token };
  const notification: NonNullable<FcmMessage['notification']> = {};
  if (content.title !== null) notification.title = content.title;
  if (content.body !== null) notification.body = content.body;
  if (content.imageUrl !== null) notification.image = content.imageUrl;
  if (Object.keys(notification).length > 0) message.notification = notification;

  const data: Record<string, string> = options.receipt === undefined ? {} : { [RECEIPT_FIELD]: options.receipt };
  for (const [key, value] of Object.entries(content.data ?? {})) {
    // Reserved keys would make FCM refuse the whole message; the API refuses them first (isReservedFcmDataKey), this
    // only keeps an old stored notification deliverable.
    if (!isReservedFcmDataKey(key) && key !== RECEIPT_FIELD) data[key] = String(value);
  }
  // The first-class url wins over a data entry of the same name, as in the APNs payload.
  if (content.url !== null) data[FCM_URL_KEY] = content.url;
  // FCM's Android notification has no buttons (AndroidNotification,
  // https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages#androidnotification): the app adds them
  // from this JSON when it shows the notification itself (docs/engagement.md, "Action buttons").
  if (content.actions !== null) data[ACTIONS_FIELD] = JSON.stringify(content.actions);
  if (Object.keys(data).length > 0) message.data = data;
  const android = {
    priority: content.priority === 'high' ? 'HIGH' : 'NORMAL',
    ...fcmTtl(remainingTtlSeconds(content, options.now)),
  } as const;
  // A silent push is a data-only message: the app's FirebaseMessagingService gets it and nothing is shown
  // (docs/protocols.md 3.2).
  if (content.contentAvailable) {
    message.android = android;
    return { message };
  }

  const androidNotification: NonNullable<NonNullable<FcmMessage['android']>['notification']> = {
    // Same notification id → the shown notification is replaced, so an at-least-once repeat is not a duplicate
    // (docs/design.md 3.3).
    tag: content.notificationId,
  };
  if (content.sound !== null) androidNotification.sound = content.sound;
  if (content.badge !== null) androidNotification.notification_count = content.badge;
  if (content.androidChannelId !== null) androidNotification.channel_id = content.androidChannelId;
  message.android = { ...android, notification: androidNotification };
  return { message };
}

/**
 * A data-only message (the app's FirebaseMessagingService handles it), e.g. for Android ongoing progress. Never
 * collapsible: FCM delays collapsible messages past a burst of 20 per app and device (docs/protocols.md 3.5).
 */
export interface FcmDataOptions {
  priority?: 'normal' | 'high';
  /** Epoch ms past which the message is not worth delivering: android.ttl is the time left until then. */
  expiresAt?: number | null;
}

/** `now` (epoch ms) turns `expiresAt` into the TTL left; required with it. */
export function buildFcmDataMessage(
  token: string,
  data: Record<string, string>,
  options: FcmDataOptions = {},
  now?: number,
): FcmSendBody {
  const expiresAt = options.expiresAt ?? null;
  return {
    message: {
      token,
      data: { ...data },
      android: {
        // HIGH so the app is woken to update its notification (docs/protocols.md 3.6); FCM's own default for data is NORMAL.
        priority: options.priority === 'normal' ? 'NORMAL' : 'HIGH',
        ...fcmTtl(
          expiresAt === null
            ? null
            : secondsLeft(expiresAt, requireNow(now, 'buildFcmDataMessage: pass now with expiresAt')),
        ),
      },
    },
  };
}

/**
 * The TTL the push has left: ttl 0 stays 0 ("now or never"); with `expiresAt` (the notification's due time + ttl,
 * push-expiry.ts), the seconds from `now` to it, rounded up, so a retry keeps the original deadline; else ttlSeconds.
 */
function remainingTtlSeconds(content: PushContent, now: number | undefined): number | null {
  if (content.ttlSeconds === 0 || content.expiresAt === undefined || content.expiresAt === null)
    return content.ttlSeconds;
  return secondsLeft(
    content.expiresAt,
    requireNow(now, 'buildFcmMessage: pass options.now for content with expiresAt'),
  );
}

/** Whole seconds from `now` to `deadline`, rounded up, at least 1 (0 would mean "now or never" to FCM). */
function secondsLeft(deadline: number, now: number): number {
  return Math.max(1, Math.ceil((deadline - now) / 1000));
}

function requireNow(now: number | undefined, error: string): number {
  if (now === undefined) throw new Error(error);
  return now;
}

/**
 * android.ttl as a Duration string: 0 → "0s" (deliver now or drop), n → "<n>s" capped at 4 weeks, null → omitted, so
 * FCM keeps it its default 4 weeks (the APNs side keeps it 30 days, both "as long as the provider allows").
 */
function fcmTtl(ttlSeconds: number | null): { ttl?: string } {
  if (ttlSeconds === null) return {};
  return { ttl: `${Math.min(Math.max(Math.floor(ttlSeconds), 0), FCM_MAX_TTL_SECONDS)}s` };
}

/**
 * The size FCM holds against FCM_MAX_PAYLOAD_BYTES: UTF-8 bytes of every key and value in the message except the
 * target token (docs/protocols.md 3.3 "keys and values"; the fake counts the same way). The token is left out because it
 * is not content and its length varies; the API calls this before accepting a notification.
 */
export function fcmPayloadBytes(content: PushContent, options: { receipt?: string } = {}): number {
  // The full TTL, as at the due time: what is left of it later is never longer.
  const { token: _token, ...rest } = buildFcmMessage('', { ...content, expiresAt: null }, options).message;
  return contentBytes(rest);
}

function contentBytes(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + contentBytes(item), 0);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).reduce(
      (sum, [key, item]) => sum + Buffer.byteLength(key, 'utf8') + contentBytes(item),
      0,
    );
  }
  return value === null || value === undefined ? 0 : Buffer.byteLength(String(value), 'utf8');
}
