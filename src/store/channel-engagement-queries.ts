import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

const DAY_MS = 86_400_000;

/** What a channel's notifications of one UTC day came to: sends, and their deliveries, receipts and opens. */
export interface DailyEngagement {
  channelId: string;
  /** The day's first millisecond (UTC). */
  dayStart: number;
  notifications: number;
  delivered: number;
  received: number;
  opened: number;
}

/**
 * Per channel and UTC day in [from, to), for the days that have any: the notifications created (canceled ones left
 * out) and what their per-platform counters (notification_platform_stats, receipts-queries.ts) add up to. Grouped in
 * the database by integer day number, as daily-sends-queries.ts does, so a month of a channel is at most 31 rows.
 */
export async function channelDailyEngagement(
  db: Kysely<Database>,
  input: { channelIds: string[]; from: number; to: number },
): Promise<DailyEngagement[]> {
  if (input.channelIds.length === 0) return [];
  const day = sql<number>`n.created_at / ${sql.lit(DAY_MS)}`;
  const total = (column: 'delivered' | 'received' | 'opened') => sql<number>`coalesce(sum(s.${sql.ref(column)}), 0)`;
  const rows = await db
    .selectFrom('notifications as n')
    .leftJoin('notification_platform_stats as s', 's.notification_id', 'n.id')
    .select([
      'n.channel_id as channelId',
      day.as('day'),
      sql<number>`count(distinct n.id)`.as('notifications'),
      total('delivered').as('delivered'),
      total('received').as('received'),
      total('opened').as('opened'),
    ])
    .where('n.channel_id', 'in', input.channelIds)
    .where('n.created_at', '>=', input.from)
    .where('n.created_at', '<', input.to)
    .where('n.status', '!=', 'canceled')
    .groupBy(['n.channel_id', day])
    .orderBy(day)
    .execute();
  return rows.map((row) => ({
    channelId: row.channelId,
    dayStart: Number(row.day) * DAY_MS,
    notifications: Number(row.notifications),
    delivered: Number(row.delivered),
    received: Number(row.received),
    opened: Number(row.opened),
  }));
}
