import Type from 'typebox';
import { isReservedFcmDataKey } from '../../../delivery/fcm/fcm-message.ts';
import { parseLocalTime } from '../../../domain/local-time.ts';
import { validationFailed } from '../../api-error.ts';
import {
  BODY_MAX_LENGTH,
  MAX_SCHEDULE_AHEAD_MS,
  MAX_TTL_SECONDS,
  TITLE_MAX_LENGTH,
  URL_MAX_LENGTH,
} from '../../../domain/limits.ts';

/** Keys FCM refuses besides isReservedFcmDataKey's; "clarion" is ours for Live Activities. */
const RESERVED_DATA_KEYS = new Set(['collapse_key', 'notification', 'clarion']);
const MAX_DATA_ENTRIES = 50;

/** Everything a notification carries apart from its channel, shared by POST /notifications and POST /notify. */
export const notificationContentProperties = {
  title: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: TITLE_MAX_LENGTH,
      description: 'Title. A notification needs a title, a body or both.',
    }),
  ),
  body: Type.Optional(Type.String({ minLength: 1, maxLength: BODY_MAX_LENGTH, description: 'Text.' })),
  url: Type.Optional(
    Type.String({
      format: 'uri',
      maxLength: URL_MAX_LENGTH,
      description: 'Absolute http(s) URL opened when the notification is tapped.',
      hint: 'must be an absolute http(s) URL, like https://example.com/orders/42',
    }),
  ),
  data: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.String({ maxLength: 1024 }), {
      maxProperties: MAX_DATA_ENTRIES,
      description: 'Extra key/value strings delivered to the app.',
      hint: `must be an object of at most ${MAX_DATA_ENTRIES} string values`,
    }),
  ),
  sendAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'ISO 8601 time with offset. In the future: the notification is scheduled; now or past: sent at once. At most 365 days ahead.',
      hint: 'must be an ISO 8601 time with offset, like 2026-05-01T09:00:00+02:00',
    }),
  ),
  deliverAtLocalTime: Type.Optional(
    Type.String({
      description:
        '"HH:MM" (24-hour): deliver at this wall-clock time in each subscriber\'s own time zone (the account\'s default, else UTC, for subscribers without one), at its next occurrence on or after sendAt (or now).',
      hint: 'must be a 24-hour local time like 09:00',
    }),
  ),
  imageUrl: Type.Optional(
    Type.String({
      format: 'uri',
      maxLength: URL_MAX_LENGTH,
      description: 'https URL of an image shown with the notification.',
      hint: 'must be an absolute https URL',
    }),
  ),
  iconUrl: Type.Optional(
    Type.String({
      format: 'uri',
      maxLength: URL_MAX_LENGTH,
      description:
        "https URL of a small icon browsers show with the notification (Web Push); iOS and Android show the app's icon.",
      hint: 'must be an absolute https URL',
    }),
  ),
  sound: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Sound name; "default" for the platform sound.' }),
  ),
  badge: Type.Optional(Type.Integer({ minimum: 0, maximum: 99999, description: 'iOS app icon badge number.' })),
  priority: Type.Optional(
    Type.Union([Type.Literal('normal'), Type.Literal('high')], {
      default: 'high',
      description: 'high (default) delivers at once; normal lets the device batch for battery.',
    }),
  ),
  ttlSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_TTL_SECONDS,
      description: `How long the platform may hold an undeliverable notification, 0–${MAX_TTL_SECONDS} seconds (28 days).`,
    }),
  ),
};

export interface NotificationContent {
  title?: string | undefined;
  body?: string | undefined;
  url?: string | undefined;
  data?: Record<string, string> | undefined;
  sendAt?: string | undefined;
  deliverAtLocalTime?: string | undefined;
  imageUrl?: string | undefined;
  iconUrl?: string | undefined;
  sound?: string | undefined;
  badge?: number | undefined;
  priority?: 'normal' | 'high' | undefined;
  ttlSeconds?: number | undefined;
}

/**
 * The rules a JSON schema cannot say. Returns the parsed send time (ms; null for "now") and the local delivery time.
 */
export function checkNotificationContent(
  content: NotificationContent,
  now: number,
): { sendAt: number | null; localTime: { hour: number; minute: number } | null } {
  const problems: Array<{ field: string; message: string }> = [];
  if (content.title === undefined && content.body === undefined) {
    problems.push({ field: 'title', message: 'a notification needs a title, a body or both' });
  }
  if (content.url !== undefined && !isHttpUrl(content.url, ['http:', 'https:'])) {
    problems.push({ field: 'url', message: 'must be an absolute http(s) URL, like https://example.com/orders/42' });
  }
  for (const field of ['imageUrl', 'iconUrl'] as const) {
    const value = content[field];
    if (value !== undefined && !isHttpUrl(value, ['https:']))
      problems.push({ field, message: 'must be an absolute https URL' });
  }
  for (const key of Object.keys(content.data ?? {})) {
    if (RESERVED_DATA_KEYS.has(key) || isReservedFcmDataKey(key)) {
      problems.push({
        field: `data.${key}`,
        message:
          'is a reserved key (from, message_type, collapse_key, notification, clarion, or starting with google or gcm)',
      });
    }
  }
  let sendAt: number | null = null;
  if (content.sendAt !== undefined) {
    const parsed = Date.parse(content.sendAt);
    if (!/(Z|[+-]\d{2}:\d{2})$/i.test(content.sendAt) || Number.isNaN(parsed)) {
      problems.push({
        field: 'sendAt',
        message: 'must be an ISO 8601 time with offset, like 2026-05-01T09:00:00+02:00',
      });
    } else if (parsed > now + MAX_SCHEDULE_AHEAD_MS) {
      problems.push({ field: 'sendAt', message: 'can be at most 365 days ahead' });
    } else if (parsed > now) {
      sendAt = parsed;
    }
  }
  const localTime = content.deliverAtLocalTime === undefined ? null : parseLocalTime(content.deliverAtLocalTime);
  if (content.deliverAtLocalTime !== undefined && localTime === null) {
    problems.push({ field: 'deliverAtLocalTime', message: 'must be a 24-hour local time like 09:00' });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return { sendAt, localTime };
}

function isHttpUrl(value: string, protocols: string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}
