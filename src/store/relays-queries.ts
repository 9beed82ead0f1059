import type { Kysely, Selectable } from 'kysely';
import { isId } from '../domain/ids.ts';
import { findRowById } from './find-row-by-id.ts';
import type { Database, RelaysTable } from './schema.ts';

/**
 * Relays (docs/live-activities.md, "Relays"). Secrets arrive here sealed (src/domain/secret-box.ts). Lookups for a
 * caller are scoped to its account; the webhook routes find a relay by id alone, then check the signature.
 */
export type Relay = Selectable<RelaysTable> & { channel_code: string };

/** At most this many relays per account: each is a door into one channel, and a dashboard lists them all. */
export const MAX_RELAYS_PER_ACCOUNT = 50;

export async function insertRelay(db: Kysely<Database>, row: Selectable<RelaysTable>): Promise<void> {
  await db.insertInto('relays').values(row).execute();
}

function relaysWithChannel(db: Kysely<Database>) {
  return db
    .selectFrom('relays')
    .innerJoin('channels', 'channels.id', 'relays.channel_id')
    .selectAll('relays')
    .select('channels.code as channel_code');
}

export async function listRelays(db: Kysely<Database>, accountId: string): Promise<Relay[]> {
  return relaysWithChannel(db).where('relays.account_id', '=', accountId).orderBy('relays.id').execute();
}

export async function countRelays(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('relays')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The relay with `id` (within the account when `scope` is given), with its channel's code. */
export async function findRelay(
  db: Kysely<Database>,
  id: string,
  scope?: { accountId: string },
): Promise<Relay | undefined> {
  const row = await findRowById(db, 'relays', id, scope);
  if (!row) return undefined;
  const channel = await db.selectFrom('channels').select('code').where('id', '=', row.channel_id).executeTakeFirst();
  return channel ? { ...row, channel_code: channel.code } : undefined;
}

export async function removeRelay(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  // A string that is not a relay id names nothing, and is not asked (PostgreSQL refuses "\0" in a parameter).
  if (!isId('relay', id)) return false;
  const result = await db
    .deleteFrom('relays')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Records a webhook that passed the relay's signature check. */
export async function touchRelay(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('relays').set({ last_used_at: now }).where('id', '=', id).execute();
}
