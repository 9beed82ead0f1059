import type { Kysely, Selectable } from 'kysely';
import type { Database, LiveActivitiesTable } from './schema.ts';

export type LiveActivityRow = Selectable<LiveActivitiesTable>;

export async function insertLiveActivity(trx: Kysely<Database>, row: LiveActivityRow): Promise<void> {
  await trx.insertInto('live_activities').values(row).execute();
}

export async function findLiveActivity(db: Kysely<Database>, accountId: string, id: string): Promise<LiveActivityRow | undefined> {
  return db.selectFrom('live_activities').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}
