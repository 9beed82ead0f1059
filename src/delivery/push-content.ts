import { parseJson } from '../store/store-errors.ts';
import type { NotificationRow } from '../store/notifications-store.ts';
import type { PushContent } from './delivery-outcome.ts';

export function pushContentOf(row: NotificationRow): PushContent {
  return {
    notificationId: row.id,
    title: row.title,
    body: row.body,
    url: row.url,
    data: parseJson<Record<string, string>>(row.data),
    imageUrl: row.image_url,
    sound: row.sound,
    badge: row.badge,
    priority: row.priority,
    ttlSeconds: row.ttl_seconds,
  };
}
