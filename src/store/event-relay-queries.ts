import type { Kysely, Selectable } from 'kysely';
import type { Store } from './database.ts';
import type { Database, EventsTable } from './schema.ts';

export type UnrelayedEvent = Pick<Selectable<EventsTable>, 'id' | 'account_id' | 'type' | 'data' | 'created_at'>;

/**
 * Claims up to `limit` events that have no webhook messages yet, oldest first, for the caller's transaction.
 * `serialWriters` (src/store/database.ts):
 * - false (PostgreSQL): `FOR UPDATE SKIP LOCKED`, so relays in several worker processes take disjoint events without
 *   waiting on each other; a claimed event stays locked until the transaction that marks it relayed commits;
 * - true (SQLite): the transaction already holds the single write lock (BEGIN IMMEDIATE), so a plain SELECT is exclusive.
 */
export async function claimUnrelayedEvents(
  db: Kysely<Database>,
  store: Pick<Store, 'serialWriters'>,
  limit: number,
): Promise<UnrelayedEvent[]> {
  const query = db
    .selectFrom('events')
    .select(['id', 'account_id', 'type', 'data', 'created_at'])
    .where('relayed_at', 'is', null)
    .orderBy('id')
    .limit(limit);
  return (store.serialWriters ? query : query.forUpdate().skipLocked()).execute();
}

export async function markEventsRelayed(db: Kysely<Database>, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('events').set({ relayed_at: now }).where('id', 'in', ids).execute();
}
