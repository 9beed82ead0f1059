import type { Kysely, Selectable, Updateable } from 'kysely';
import { findRowById } from './find-row-by-id.ts';
import { preparedQuery } from './prepared-query.ts';
import type { AppsTable, Database } from './schema.ts';

/**
 * Apps: an account's own push credentials (docs/apps.md). Secrets arrive here already sealed
 * (src/delivery/app-credentials.ts); every lookup by id is scoped to the account, so another account's id names nothing.
 */
export type App = Selectable<AppsTable>;
export type AppCredentialColumns = Omit<Updateable<AppsTable>, 'id' | 'account_id' | 'created_at'>;

/**
 * Stores a new app: no credentials but the ones in `sealed` (src/delivery/app-credentials.ts seals them; a new app
 * always has its VAPID pair), status ok. The one place that lists an app row's columns, for the API and the CLI.
 */
export async function insertApp(
  db: Kysely<Database>,
  input: {
    id: string;
    accountId: string;
    name: string;
    sealed: AppCredentialColumns;
    throttlePerMinute?: number | null;
    now: number;
  },
): Promise<App> {
  const row: App = {
    id: input.id,
    account_id: input.accountId,
    name: input.name,
    apns_key_id: null,
    apns_team_id: null,
    apns_topic: null,
    apns_sealed_key: null,
    fcm_project_id: null,
    fcm_client_email: null,
    fcm_sealed_service_account: null,
    vapid_subject: null,
    credentials_status: 'ok',
    credentials_error: null,
    credentials_failed_at: null,
    throttle_per_minute: input.throttlePerMinute ?? null,
    created_at: input.now,
    updated_at: input.now,
    ...(input.sealed as Pick<App, 'vapid_public_key' | 'vapid_sealed_private_key'>),
  };
  await db.insertInto('apps').values(row).execute();
  return row;
}

export function findApp(db: Kysely<Database>, accountId: string, id: string): Promise<App | undefined> {
  return findRowById(db, 'apps', id, { accountId });
}

/** For the delivery worker, which has the app id from the channel of its own notification. */
export function findAppById(db: Kysely<Database>, id: string): Promise<App | undefined> {
  return findRowById(db, 'apps', id);
}

/** Apps of an account in id (creation) order. */
export async function listApps(
  db: Kysely<Database>,
  input: { accountId: string; after: string | null; limit: number },
): Promise<App[]> {
  let query = db.selectFrom('apps').selectAll().where('account_id', '=', input.accountId);
  if (input.after) query = query.where('id', '>', input.after);
  return query.orderBy('id').limit(input.limit).execute();
}

/**
 * The app a new channel is bound to: the one asked for, when it is the account's (else `not_found`: another account's
 * app names nothing), or the built-in app when null is asked for; without one asked for, the account's first app,
 * and without apps null, the built-in app.
 */
export async function appForNewChannel(
  db: Kysely<Database>,
  accountId: string,
  requested: string | null | undefined,
): Promise<{ appId: string | null } | 'not_found'> {
  // null names the built-in app on purpose (docs/apps.md), even for an account with apps.
  if (requested === null) return { appId: null };
  if (requested !== undefined) return (await findApp(db, accountId, requested)) ? { appId: requested } : 'not_found';
  const row = await db
    .selectFrom('apps')
    .select('id')
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return { appId: row?.id ?? null };
}

export async function updateApp(
  db: Kysely<Database>,
  accountId: string,
  id: string,
  set: AppCredentialColumns,
): Promise<App | undefined> {
  return db
    .updateTable('apps')
    .set(set)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returningAll()
    .executeTakeFirst();
}

/** The app whose credentials deliver a channel (docs/apps.md); null: the built-in one. */
export async function appIdOfChannel(db: Kysely<Database>, channelId: string): Promise<string | null> {
  const [row] = await appIdOfChannelQuery(db, { channelId });
  return row?.app_id ?? null;
}

/** Read by every send job: compiled once, a named statement on PostgreSQL (src/store/prepared-query.ts). */
const appIdOfChannelQuery = preparedQuery((db, param, _values: { channelId: string }) =>
  db.selectFrom('channels').select('app_id').where('id', '=', param<string>('channelId')),
);

/** Codes of the channels bound to the app: an app in use is not deleted. */
export async function channelsOfApp(db: Kysely<Database>, appId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('channels')
    .select('code')
    .where('app_id', '=', appId)
    .orderBy('code')
    .limit(20)
    .execute();
  return rows.map((row) => row.code);
}

export async function deleteApp(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('apps')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Marks the app's credentials failing (a provider refused them). Returns true only for the change from 'ok', so the
 * `app.credentials_failed` event is recorded once per failure, not once per batch.
 */
export async function markAppCredentialsFailing(
  trx: Kysely<Database>,
  input: { appId: string; error: string; now: number },
): Promise<boolean> {
  const result = await trx
    .updateTable('apps')
    .set({
      credentials_status: 'failing',
      credentials_error: input.error,
      credentials_failed_at: input.now,
      updated_at: input.now,
    })
    .where('id', '=', input.appId)
    .where('credentials_status', '=', 'ok')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
