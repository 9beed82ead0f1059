import type { Insertable, Kysely, Selectable } from 'kysely';
import { findRowById } from './find-row-by-id.ts';
import type { Database, WebhookAttemptsTable, WebhookMessagesTable } from './schema.ts';

/**
 * Webhook messages (one per event and endpoint, or one per test) and their attempts. A message's status is the
 * outcome of its latest attempt: `pending` while an attempt is queued, `delivered` after a 2xx, `failed` when the
 * schedule ran out or the endpoint was disabled (a manual replay can still deliver it).
 */
export type WebhookMessage = Selectable<WebhookMessagesTable>;
export type WebhookAttempt = Selectable<WebhookAttemptsTable>;
export type NewWebhookMessage = Insertable<WebhookMessagesTable>;

/**
 * Inserts messages, skipping any (endpoint, event) pair that already has one; returns the ids actually inserted,
 * so the caller enqueues exactly one delivery job per new message.
 */
export async function insertWebhookMessages(db: Kysely<Database>, messages: NewWebhookMessage[]): Promise<string[]> {
  if (messages.length === 0) return [];
  const inserted = await db
    .insertInto('webhook_messages')
    .values(messages)
    .onConflict((conflict) => conflict.columns(['endpoint_id', 'event_id']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((row) => row.id);
}

export function findWebhookMessage(
  db: Kysely<Database>,
  accountId: string,
  id: string,
): Promise<WebhookMessage | undefined> {
  return findRowById(db, 'webhook_messages', id, { accountId });
}

export function findWebhookMessageById(db: Kysely<Database>, id: string): Promise<WebhookMessage | undefined> {
  return findRowById(db, 'webhook_messages', id);
}

/** An endpoint's messages, newest first, optionally of one status; `before` is the last id of the previous page. */
export async function listWebhookMessages(
  db: Kysely<Database>,
  input: { endpointId: string; status: WebhookMessage['status'] | null; before: string | null; limit: number },
): Promise<WebhookMessage[]> {
  let query = db.selectFrom('webhook_messages').selectAll().where('endpoint_id', '=', input.endpointId);
  if (input.status) query = query.where('status', '=', input.status);
  if (input.before) query = query.where('id', '<', input.before);
  return query.orderBy('id', 'desc').limit(input.limit).execute();
}

/** Attempts of these messages, grouped by message id, oldest first. */
export async function listWebhookAttempts(
  db: Kysely<Database>,
  messageIds: string[],
): Promise<Map<string, WebhookAttempt[]>> {
  const byMessage = new Map<string, WebhookAttempt[]>(messageIds.map((id) => [id, []]));
  if (messageIds.length === 0) return byMessage;
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('message_id', 'in', messageIds)
    .orderBy('message_id')
    .orderBy('attempt')
    .execute();
  for (const row of rows) byMessage.get(row.message_id)?.push(row);
  return byMessage;
}

/**
 * Logs one attempt: numbers it by incrementing the message's count in the same statement (UPDATE … RETURNING, so
 * two concurrent attempts of one message get different numbers), then inserts it. Undefined when the message is gone.
 */
export async function recordWebhookAttempt(
  db: Kysely<Database>,
  input: Omit<WebhookAttempt, 'attempt'> & { now: number },
): Promise<number | undefined> {
  const counted = await db
    .updateTable('webhook_messages')
    .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1), updated_at: input.now }))
    .where('id', '=', input.message_id)
    .returning('attempt_count')
    .executeTakeFirst();
  if (!counted) return undefined;
  const { now: _now, ...attempt } = input;
  await db
    .insertInto('webhook_attempts')
    .values({ ...attempt, attempt: counted.attempt_count })
    .execute();
  return counted.attempt_count;
}

/** After a 2xx: delivered, and any scheduled attempt still queued will find nothing to do. */
export async function markMessageDelivered(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_messages')
    .set({ status: 'delivered', delivered_at: now, next_attempt_at: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** After a failed scheduled attempt with attempts left: the next one is queued for `nextAttemptAt`. */
export async function markMessageRetrying(
  db: Kysely<Database>,
  id: string,
  nextAttemptAt: number,
  now: number,
): Promise<void> {
  await db
    .updateTable('webhook_messages')
    .set({ status: 'pending', next_attempt_at: nextAttemptAt, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** No attempt will follow: the schedule ran out, the endpoint was disabled, or it answered 410. */
export async function markMessageFailed(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_messages')
    .set({ status: 'failed', next_attempt_at: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** After a failed manual replay: still pending if a scheduled attempt is queued, otherwise failed. */
export async function markManualAttemptFailed(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_messages')
    .set((eb) => ({
      status: eb
        .case()
        .when('next_attempt_at', 'is', null)
        .then('failed' as const)
        .else('pending' as const)
        .end(),
      updated_at: now,
    }))
    .where('id', '=', id)
    .execute();
}

/** A manual replay is queued: the message shows `pending` until its attempt has an outcome. */
export async function markReplayQueued(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('webhook_messages').set({ status: 'pending', updated_at: now }).where('id', '=', id).execute();
}
