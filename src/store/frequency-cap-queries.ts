import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/*
 * The deliveries a channel's frequency cap counts (domain/frequency-cap.ts): one row per notification delivered to a
 * subscriber of a capped channel, kept for the cap's period.
 */

/** Chunks keep each statement under SQLite's 32,766 bound parameters. */
const CHUNK = 1000;

/**
 * How many notifications each of `subscriberIds` was delivered since `since` (epoch ms, exclusive); subscribers with
 * none are absent. Read from the index on (subscriber_id, delivered_at).
 */
export async function deliveriesSince(
  db: Kysely<Database>,
  subscriberIds: readonly string[],
  since: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let start = 0; start < subscriberIds.length; start += CHUNK) {
    const rows = await db
      .selectFrom('frequency_cap_deliveries')
      .select(['subscriber_id', (eb) => eb.fn.countAll<number | string>().as('delivered')])
      .where('subscriber_id', 'in', subscriberIds.slice(start, start + CHUNK))
      .where('delivered_at', '>', since)
      .groupBy('subscriber_id')
      .execute();
    for (const row of rows) counts.set(row.subscriber_id, Number(row.delivered));
  }
  return counts;
}

/**
 * Counts a notification's deliveries towards its channel's cap, and forgets these subscribers' deliveries older than
 * the cap's period (`before`, epoch ms): what a subscriber keeps is bounded by what the cap can still see. A repeated
 * settling of the same batch counts each delivery once.
 */
export async function recordCappedDeliveries(
  trx: Kysely<Database>,
  input: { notificationId: string; subscriberIds: readonly string[]; now: number; before: number },
): Promise<void> {
  for (let start = 0; start < input.subscriberIds.length; start += CHUNK) {
    const ids = input.subscriberIds.slice(start, start + CHUNK);
    await trx
      .deleteFrom('frequency_cap_deliveries')
      .where('subscriber_id', 'in', ids)
      .where('delivered_at', '<=', input.before)
      .execute();
    await trx
      .insertInto('frequency_cap_deliveries')
      .values(ids.map((id) => ({ subscriber_id: id, notification_id: input.notificationId, delivered_at: input.now })))
      .onConflict((conflict) => conflict.columns(['subscriber_id', 'notification_id']).doNothing())
      .execute();
  }
}
