import { parseJson } from '../store/store-errors.ts';
import type { NotificationRow } from '../store/notifications-store.ts';

/** The platform-neutral content of a notification push, built from a stored notification. */
export interface PushContent {
  /** The notification id: apns-collapse-id and FCM android.notification.tag, so a repeat replaces, not duplicates. */
  notificationId: string;
  title: string | null;
  body: string | null;
  url: string | null;
  data: Record<string, string> | null;
  imageUrl: string | null;
  /** A small icon for browsers (the Web Push message's `icon`); APNs and FCM show the app's icon. */
  iconUrl: string | null;
  sound: string | null;
  badge: number | null;
  priority: 'normal' | 'high';
  ttlSeconds: number | null;
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

/** The columns of a stored notification that make its content. */
type ContentColumns = Pick<
  NotificationRow,
  'title' | 'body' | 'url' | 'data' | 'image_url' | 'icon_url' | 'sound' | 'badge' | 'priority' | 'ttl_seconds'
>;

export function pushContentOf(
  row: ContentColumns & Pick<NotificationRow, 'id'>,
  expiresAt: number | null = null,
): PushContent {
  return { notificationId: row.id, ...notificationContent(row), expiresAt };
}

/** What a caller sent, as stored: pushed to devices (pushContentOf) and shown back by the API (notification-view.ts). */
export function notificationContent(row: ContentColumns): Omit<PushContent, 'notificationId' | 'expiresAt'> {
  return {
    title: row.title,
    body: row.body,
    url: row.url,
    data: parseJson<Record<string, string>>(row.data),
    imageUrl: row.image_url,
    iconUrl: row.icon_url,
    sound: row.sound,
    badge: row.badge,
    priority: row.priority,
    ttlSeconds: row.ttl_seconds,
  };
}
