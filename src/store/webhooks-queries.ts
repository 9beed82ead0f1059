import type { Kysely, Selectable } from 'kysely';
import { isId } from '../domain/ids.ts';
import { findRowById } from './find-row-by-id.ts';
import type { Database, WebhookEndpointsTable } from './schema.ts';

/**
 * Webhook endpoints. Secrets arrive here already sealed (src/domain/secret-box.ts): this file never sees a
 * plain `whsec_` value. Every lookup by id is scoped to the account, so another account's id is simply not found.
 */
export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;

export async function insertWebhook(
  db: Kysely<Database>,
  input: {
    id: string;
    accountId: string;
    url: string;
    description: string | null;
    eventTypes: string[];
    sealedSecret: string;
    now: number;
  },
): Promise<WebhookEndpoint> {
  const row: WebhookEndpoint = {
    id: input.id,
    account_id: input.accountId,
    url: input.url,
    description: input.description,
    event_types: JSON.stringify(input.eventTypes),
    secret: input.sealedSecret,
    previous_secret: null,
    previous_secret_expires_at: null,
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    failing_since: null,
    created_at: input.now,
    updated_at: input.now,
  };
  await db.insertInto('webhook_endpoints').values(row).execute();
  return row;
}

export function findWebhookEndpoint(
  db: Kysely<Database>,
  accountId: string,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  return findRowById(db, 'webhook_endpoints', id, { accountId });
}

/** For the delivery job, which has the id from its own message. */
export function findWebhookEndpointById(db: Kysely<Database>, id: string): Promise<WebhookEndpoint | undefined> {
  return findRowById(db, 'webhook_endpoints', id);
}

/** Endpoints of an account in id (creation) order. */
export async function listWebhookEndpoints(
  db: Kysely<Database>,
  input: { accountId: string; after: string | null; limit: number },
): Promise<WebhookEndpoint[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', input.accountId);
  if (input.after) query = query.where('id', '>', input.after);
  return query.orderBy('id').limit(input.limit).execute();
}

export async function countWebhookEndpoints(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The enabled endpoints of these accounts: who the relay creates messages for. */
export async function listEnabledEndpoints(db: Kysely<Database>, accountIds: string[]): Promise<WebhookEndpoint[]> {
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('status', '=', 'enabled')
    .orderBy('id')
    .execute();
}

/** Deletes the endpoint; its messages and attempts go with it (ON DELETE CASCADE). False when there was none. */
export async function removeWebhook(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  if (!isId('webhook', id)) return false;
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * Replaces the secret. The one it replaces keeps signing until `previousExpiresAt` (null or a past time: at once);
 * a secret that was still in an earlier grace period is dropped, so at most two sign at any time.
 */
export async function rotateWebhookSecret(
  db: Kysely<Database>,
  input: { endpoint: WebhookEndpoint; sealedSecret: string; previousExpiresAt: number | null; now: number },
): Promise<void> {
  const keepPrevious = input.previousExpiresAt !== null && input.previousExpiresAt > input.now;
  await db
    .updateTable('webhook_endpoints')
    .set({
      secret: input.sealedSecret,
      previous_secret: keepPrevious ? input.endpoint.secret : null,
      previous_secret_expires_at: keepPrevious ? input.previousExpiresAt : null,
      updated_at: input.now,
    })
    .where('id', '=', input.endpoint.id)
    .execute();
}

/** Re-enables an endpoint and forgets its failure streak (a fresh five days). */
export async function reenableWebhook(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * Records an attempt's outcome on the endpoint and returns its state afterwards: a success ends the failure
 * streak, a failure starts one if none is running. Single statements, so concurrent attempts to the same endpoint
 * (several workers) cannot lose the streak's start.
 */
export async function recordEndpointOutcome(
  db: Kysely<Database>,
  input: { id: string; success: boolean; now: number },
): Promise<Pick<WebhookEndpoint, 'status' | 'failing_since'> | undefined> {
  const update = db.updateTable('webhook_endpoints').where('id', '=', input.id);
  if (input.success) await update.set({ failing_since: null }).where('failing_since', 'is not', null).execute();
  else await update.set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(input.now)) })).execute();
  return db
    .selectFrom('webhook_endpoints')
    .select(['status', 'failing_since'])
    .where('id', '=', input.id)
    .executeTakeFirst();
}

/** Disables an enabled endpoint with a reason the account sees; false if it was already disabled (or is gone). */
export async function disableWebhookEndpoint(
  db: Kysely<Database>,
  input: { id: string; reason: string; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: input.reason, disabled_at: input.now, updated_at: input.now })
    .where('id', '=', input.id)
    .where('status', '=', 'enabled')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function eventTypesOf(endpoint: Pick<WebhookEndpoint, 'event_types'>): string[] {
  return JSON.parse(endpoint.event_types) as string[];
}
