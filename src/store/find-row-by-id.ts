import type { Kysely, Selectable } from 'kysely';
import { isId, type IdKind } from '../domain/ids.ts';
import type { Database } from './schema.ts';

/** The tables whose rows are found by their prefixed id (src/domain/ids.ts), with the id kind each holds. */
const idKindOfTable = {
  apps: 'app',
  live_activities: 'liveActivity',
  relays: 'relay',
  webhook_endpoints: 'webhook',
  webhook_messages: 'webhookMessage',
} as const satisfies Partial<Record<keyof Database, IdKind>>;

type TableWithId = keyof typeof idKindOfTable;

/**
 * One row by its id: within `scope.accountId` for a caller (another account's id then names nothing), or across
 * accounts for the delivery jobs, which act for no particular caller and hold the id from their own payload.
 * A string that is not an id of the table's kind names nothing and is not asked of the database (PostgreSQL refuses
 * "\0" in a text parameter).
 */
export async function findRowById<T extends TableWithId>(
  db: Kysely<Database>,
  table: T,
  id: string,
  scope?: { accountId: string },
): Promise<Selectable<Database[T]> | undefined> {
  if (!isId(idKindOfTable[table], id)) return undefined;
  // Kysely cannot narrow a query over a generic table name; every table above has `id` and `account_id` columns.
  let query = db
    .selectFrom(table as TableWithId)
    .selectAll()
    .where('id', '=', id);
  if (scope) query = query.where('account_id', '=', scope.accountId);
  return (await query.executeTakeFirst()) as Selectable<Database[T]> | undefined;
}
