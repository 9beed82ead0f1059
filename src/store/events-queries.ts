import type { Insertable, Kysely } from 'kysely';
import { newId } from '../domain/ids.ts';
import { preparedQuery } from './prepared-query.ts';
import { preparedRowsQuery } from './prepared-rows-query.ts';
import type { Database, EventsTable } from './schema.ts';

/**
 * Event types webhooks report (docs/design.md 2.6). Events are written in the same transaction as the change they
 * describe, so none is lost or invented; the webhook relay (src/webhooks/webhook-relay.ts) delivers them from this table.
 */
export type EventType =
  | 'subscriber.created'
  | 'subscriber.unsubscribed'
  | 'subscriber.deleted'
  | 'notification.delivered'
  | 'delivery.failed'
  | 'notification.opened'
  | 'notification.action'
  | 'live_activity.started'
  | 'live_activity.updated'
  | 'live_activity.ended'
  | 'app.credentials_failed';

type NewEvent = { accountId: string; type: EventType; data: Record<string, unknown>; now: number };

export async function recordEvent(db: Kysely<Database>, input: NewEvent): Promise<string> {
  const id = newId('event', input.now);
  await insertEvent(db, {
    id,
    account_id: input.accountId,
    type: input.type,
    data: JSON.stringify(input.data),
    created_at: input.now,
  });
  return id;
}

/**
 * One event: every notification's `notification.delivered`, in its last settle. A prepared query rather than the
 * batch's (below) so that PostgreSQL keeps it as a named statement (src/store/prepared-query.ts; docs/performance.md,
 * "Latency to first push"); the batch's texts, one per number of rows, are not named.
 */
const insertEvent = preparedQuery((db, param, _row: Insertable<EventsTable>) =>
  db.insertInto('events').values({
    id: param('id'),
    account_id: param('account_id'),
    type: param('type'),
    data: param('data'),
    created_at: param('created_at'),
  }),
);

/** Compiled once per number of events (preparedRowsQuery): a bulk import writes up to 1,000 at a time. */
const insertEvents = preparedRowsQuery((db, rows: ReadonlyArray<Insertable<EventsTable>>) =>
  db.insertInto('events').values(rows),
);

/** Several events in one INSERT (a bulk import's `subscriber.created`s); returns their ids in order. */
export async function recordEvents(db: Kysely<Database>, events: readonly NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    id: newId('event', event.now),
    account_id: event.accountId,
    type: event.type,
    data: JSON.stringify(event.data),
    created_at: event.now,
  }));
  await insertEvents(db, rows);
  return rows.map((row) => row.id);
}

export async function listEvents(
  db: Kysely<Database>,
  accountId: string,
): Promise<Array<{ id: string; type: string; data: unknown }>> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'type', 'data'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, type: row.type, data: JSON.parse(row.data) }));
}
