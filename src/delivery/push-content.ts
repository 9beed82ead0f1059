import { contentFromColumns, type ContentColumns, type NotificationContent } from '../domain/notification-content.ts';

/** The platform-neutral content of a notification push, built from a stored notification. */
export interface PushContent extends NotificationContent {
  /** The notification id: apns-collapse-id and FCM android.notification.tag, so a repeat replaces, not duplicates. */
  notificationId: string;
  /**
   * When the push expires (epoch ms), fixed from the notification's due time (push-expiry.ts); the provider gets what
   * is left of it. Absent or null: ttlSeconds counts from the moment of sending (content with no due time).
   */
  expiresAt?: number | null;
  /**
   * Web Push only: what the push's `Topic` is made from when it is not `notificationId` (web-push-message.ts), so a
   * push does not replace, nor get replaced by, undelivered pushes of another topic at the push service.
   */
  topic?: string;
}

export function pushContentOf(row: ContentColumns & { id: string }, expiresAt: number | null = null): PushContent {
  return { notificationId: row.id, ...contentFromColumns(row), expiresAt };
}
