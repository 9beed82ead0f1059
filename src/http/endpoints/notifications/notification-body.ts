import Type from 'typebox';
import { parseLocalTime } from '../../../domain/local-time.ts';
import { MAX_SCHEDULE_AHEAD_MS } from '../../../domain/limits.ts';
import {
  contentProblems,
  contentRequestProperties,
  type RequestedContent,
} from '../../../domain/notification-content.ts';
import { validationFailed } from '../../api-error.ts';

/** Everything a notification carries apart from its channel, shared by POST /notifications and POST /notify. */
export const notificationContentProperties = {
  ...contentRequestProperties,
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
};

/** A notification's content with its schedule, as POST /notifications and POST /notify take them. */
export type NotificationRequest = RequestedContent & {
  sendAt?: string | undefined;
  deliverAtLocalTime?: string | undefined;
};

/**
 * The rules a JSON schema cannot say. Returns the parsed send time (ms; null for "now") and the local delivery time.
 */
export function checkNotificationContent(
  content: NotificationRequest,
  now: number,
): { sendAt: number | null; localTime: { hour: number; minute: number } | null } {
  const problems = contentProblems(content);
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
