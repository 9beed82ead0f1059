import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

const DAY_MS = 86_400_000;

/**
 * Notifications an account created per UTC day in [from, to), as {dayStart, count} for the days that have any.
 * Canceled ones are left out: their quota was refunded. Grouped in the database by integer day number
 * (created_at is integer milliseconds on both dialects, so the same division works on SQLite and PostgreSQL),
 * which uses the notifications_account index and returns at most 31 rows however many were sent.
 */
export async function dailySends(
  db: Kysely<Database>,
  input: { accountId: string; from: number; to: number },
): Promise<Array<{ dayStart: number; count: number }>> {
  const day = sql<number>`created_at / ${sql.lit(DAY_MS)}`;
  const rows = await db
    .selectFrom('notifications')
    .select([day.as('day'), (eb) => eb.fn.countAll<number>().as('count')])
    .where('account_id', '=', input.accountId)
    .where('created_at', '>=', input.from)
    .where('created_at', '<', input.to)
    .where('status', '!=', 'canceled')
    .groupBy(day)
    .orderBy(day)
    .execute();
  return rows.map((row) => ({ dayStart: Number(row.day) * DAY_MS, count: Number(row.count) }));
}
