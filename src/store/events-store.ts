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
  | 'notification.delivered'
  | 'delivery.failed'
  | 'live_activity.started'
  | 'live_activity.updated'
  | 'live_activity.ended';

export async function recordEvent(
  db: Kysely<Database>,
  input: { accountId: string; type: EventType; data: Record<string, unknown>; now: number },
): Promise<string> {
  const id = newId('event', input.now);
  await db
    .insertInto('events')
    .values({ id, account_id: input.accountId, type: input.type, data: JSON.stringify(input.data), created_at: input.now })
    .execute();
  return id;
}

export async function listEvents(db: Kysely<Database>, accountId: string): Promise<Array<{ id: string; type: string; data: unknown }>> {
  const rows = await db.selectFrom('events').select(['id', 'type', 'data']).where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, type: row.type, data: JSON.parse(row.data) }));
}
