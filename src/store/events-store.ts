import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.ts';
import type { Database } from './schema.ts';

/**
 * Event types webhooks report (docs/design.md 2.6). Events are written in the same transaction as the change they
 * describe, so none is lost or invented; the webhooks issue delivers them from this table.
 */
export type EventType =
  | 'subscriber.created'
  | 'subscriber.unsubscribed'
  | 'subscriber.deleted'
  | 'notification.delivered'
  | 'delivery.failed'
  | 'live_activity.started'
  | 'live_activity.updated'
  | 'live_activity.ended'
  | 'app.credentials_failed';

type NewEvent = { accountId: string; type: EventType; data: Record<string, unknown>; now: number };

export async function recordEvent(db: Kysely<Database>, input: NewEvent): Promise<string> {
  const [id] = await recordEvents(db, [input]);
  return id!;
}

/** Several events in one INSERT (a bulk import's `subscriber.created`s); returns their ids in order. */
export async function recordEvents(db: Kysely<Database>, events: readonly NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({ id: newId('event', event.now), account_id: event.accountId, type: event.type, data: JSON.stringify(event.data), created_at: event.now }));
  await db.insertInto('events').values(rows).execute();
  return rows.map((row) => row.id);
}

export async function listEvents(db: Kysely<Database>, accountId: string): Promise<Array<{ id: string; type: string; data: unknown }>> {
  const rows = await db.selectFrom('events').select(['id', 'type', 'data']).where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, type: row.type, data: JSON.parse(row.data) }));
}
