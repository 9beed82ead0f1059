import type { Insertable, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import { isId } from '../domain/ids.ts';
import { preparedQuery } from './prepared-query.ts';
import type { Database, NotificationsTable } from './schema.ts';
import { activeInChannelCountQuery } from './subscribers-queries.ts';

export type NotificationRow = Selectable<NotificationsTable>;
export type NotificationStatus = NotificationRow['status'];
export const notificationStatuses = [
  'scheduled',
  'queued',
  'sending',
  'sent',
  'canceled',
  'failed',
] as const satisfies readonly NotificationStatus[];

/**
 * Stores a new notification with its recipient count taken in the same statement, and returns that count: by
 * default the channel's active subscribers, or `recipientCount` (a one-column query) when the caller counts another
 * audience. One statement instead of a count then an insert on every accepted notification (docs/performance.md,
 * "Accept path"). The default form is a prepared query (src/store/prepared-query.ts): building this INSERT with
 * Kysely cost ~29 µs of CPU per request, running the compiled text ~4 µs.
 */
export async function insertNotification(
  trx: Kysely<Database>,
  row: Omit<NotificationRow, 'recipient_count'>,
  recipientCount?: SelectQueryBuilder<Database, keyof Database, { count: number }>,
): Promise<number> {
  if (recipientCount === undefined) {
    const [inserted] = await insertCountingChannel(trx, row);
    return Number(inserted!.recipient_count);
  }
  const inserted = await trx
    .insertInto('notifications')
    .values({ ...row, recipient_count: recipientCount })
    .returning('recipient_count')
    .executeTakeFirstOrThrow();
  return Number(inserted.recipient_count);
}

/** The INSERT with the count of the channel's active subscribers; one compiled statement per set of columns. */
const insertCountingChannel = preparedQuery(
  (db, param, row: Omit<NotificationRow, 'recipient_count'>) =>
    db
      .insertInto('notifications')
      .values({
        ...Object.fromEntries(Object.keys(row).map((column) => [column, param(column)])),
        recipient_count: activeInChannelCountQuery(db, param('channel_id')),
      } as Insertable<NotificationsTable>)
      .returning('recipient_count'),
  (row) => Object.keys(row).join(),
);

/**
 * A notification by id, for the delivery jobs (each dispatch and send job reads its notification first): compiled once
 * and a named statement on PostgreSQL (src/store/prepared-query.ts, docs/performance.md, "Latency to first push").
 */
export async function findNotificationById(db: Kysely<Database>, id: string): Promise<NotificationRow | undefined> {
  const [row] = await notificationById(db, { id });
  return row;
}

const notificationById = preparedQuery((db, param, _values: { id: string }) =>
  db.selectFrom('notifications').selectAll().where('id', '=', param<string>('id')),
);

/**
 * A notification with its channel's app, for the dispatch (the send jobs it starts carry the app, src/delivery/job-kinds.ts):
 * one statement, compiled once and named on PostgreSQL like `findNotificationById`.
 */
export async function findNotificationWithChannelApp(
  db: Kysely<Database>,
  id: string,
): Promise<NotificationWithChannelRules | undefined> {
  const [row] = await notificationWithChannelApp(db, { id });
  return row;
}

/** A notification with what its dispatch needs of its channel and account: the app and the delivery rules. */
export type NotificationWithChannelRules = NotificationRow & {
  channel_app_id: string | null;
  frequency_cap_count: number | null;
  frequency_cap_period_seconds: number | null;
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
  account_default_timezone: string | null;
  /** 1 when the account's pushes carry receipts (docs/engagement.md). */
  account_receipts_enabled: number | null;
  /** The throttle of the channel's app for sends that give none. */
  app_throttle_per_minute: number | null;
};

const notificationWithChannelApp = preparedQuery((db, param, _values: { id: string }) =>
  db
    .selectFrom('notifications')
    .leftJoin('channels', 'channels.id', 'notifications.channel_id')
    .leftJoin('accounts', 'accounts.id', 'notifications.account_id')
    .leftJoin('apps', 'apps.id', 'channels.app_id')
    .selectAll('notifications')
    .select([
      'channels.app_id as channel_app_id',
      'channels.frequency_cap_count',
      'channels.frequency_cap_period_seconds',
      'channels.quiet_hours_start',
      'channels.quiet_hours_end',
      'accounts.default_timezone as account_default_timezone',
      'accounts.receipts_enabled as account_receipts_enabled',
      'apps.throttle_per_minute as app_throttle_per_minute',
    ])
    .where('notifications.id', '=', param<string>('id')),
);

/** A string that is not a notification id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findNotification(
  db: Kysely<Database>,
  accountId: string,
  id: string,
): Promise<NotificationRow | undefined> {
  if (!isId('notification', id)) return undefined;
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
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

/**
 * Records the throttle a send without one took from its app, so the Notification shows it and its expected finish
 * (dispatch-job.ts). Only while it has none: a send's own throttle is never replaced.
 */
export async function recordAppliedThrottle(
  db: Kysely<Database>,
  input: { notificationId: string; throttlePerMinute: number },
): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ throttle_per_minute: input.throttlePerMinute })
    .where('id', '=', input.notificationId)
    .where('throttle_per_minute', 'is', null)
    .execute();
}
