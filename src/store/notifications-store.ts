import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import { isId } from '../domain/ids.ts';
import type { Database, NotificationsTable } from './schema.ts';

export type NotificationRow = Selectable<NotificationsTable>;
export type NotificationStatus = NotificationRow['status'];
export const notificationStatuses = ['scheduled', 'queued', 'sending', 'sent', 'canceled', 'failed'] as const satisfies readonly NotificationStatus[];

/**
 * Stores a new notification with its recipient count taken by `recipientCount` (a one-column query) in the same
 * statement, and returns that count. One statement instead of a count then an insert on every accepted
 * notification (bench/README.md, "Accept path").
 */
export async function insertNotification(
  trx: Kysely<Database>,
  row: Omit<NotificationRow, 'recipient_count'>,
  recipientCount: SelectQueryBuilder<Database, keyof Database, { count: number }>,
): Promise<number> {
  const inserted = await trx
    .insertInto('notifications')
    .values({ ...row, recipient_count: recipientCount })
    .returning('recipient_count')
    .executeTakeFirstOrThrow();
  return Number(inserted.recipient_count);
}

/** A string that is not a notification id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findNotification(db: Kysely<Database>, accountId: string, id: string): Promise<NotificationRow | undefined> {
  if (!isId('notification', id)) return undefined;
  return db.selectFrom('notifications').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export interface NotificationFilter {
  accountId: string;
  /** Only these channels (a scoped key); null = all. */
  channelIds: string[] | null;
  status: NotificationStatus | null;
  /** Newest first: return ids below this one. */
  before: string | null;
  limit: number;
}

/** Newest first, paged by id (ids sort by creation time). */
export async function listNotifications(db: Kysely<Database>, filter: NotificationFilter): Promise<NotificationRow[]> {
  if (filter.channelIds?.length === 0) return [];
  let query = db.selectFrom('notifications').selectAll().where('account_id', '=', filter.accountId);
  if (filter.channelIds) query = query.where('channel_id', 'in', filter.channelIds);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.before) query = query.where('id', '<', filter.before);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}
