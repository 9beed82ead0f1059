import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from './schema.ts';

export type IdempotencyRecord = Selectable<IdempotencyKeysTable>;

/** How long a key is remembered (docs/design.md 2.4). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Whose key it is: the account, and within it the API key (its id) or the dashboard user (theirs) that sent the
 * request. Two callers of one account never share a key, as with Stripe, so a replay only ever goes back to the caller
 * that was authorized for the first request.
 */
export interface IdempotencyOwner {
  accountId: string;
  principalId: string;
}

/**
 * Claims a key for a new request. Returns null when the claim succeeded (the caller handles the request and then
 * completes or releases it), or the existing record when the key is already known within the window.
 */
export async function claimIdempotencyKey(
  db: Kysely<Database>,
  input: IdempotencyOwner & { key: string; operation: string; requestHash: string; now: number },
): Promise<IdempotencyRecord | null> {
  const claim = {
    account_id: input.accountId,
    principal_id: input.principalId,
    key: input.key,
    operation: input.operation,
    request_hash: input.requestHash,
    status_code: null,
    response_body: null,
    created_at: input.now,
  };
  // Two rounds: if the existing record vanishes between our insert and our read (its request failed and released
  // it), the key is free again and our second insert claims it.
  for (let round = 0; round < 2; round += 1) {
    // One statement claims a new key or takes over one older than the window (no longer counts): the upsert only
    // overwrites a record that old, and returns a row exactly when the claim is ours. (It was a DELETE of the old
    // record, then an INSERT: one statement fewer per request with a key, docs/performance.md, "Accept path".)
    const claimed = await db
      .insertInto('idempotency_keys')
      .values(claim)
      .onConflict((conflict) =>
        conflict
          .columns(['account_id', 'principal_id', 'key'])
          .doUpdateSet({
            operation: claim.operation,
            request_hash: claim.request_hash,
            status_code: null,
            response_body: null,
            created_at: claim.created_at,
          })
          .where('idempotency_keys.created_at', '<=', input.now - IDEMPOTENCY_WINDOW_MS),
      )
      .returning('key')
      .executeTakeFirst();
    if (claimed) return null;
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', input.accountId)
      .where('principal_id', '=', input.principalId)
      .where('key', '=', input.key)
      .executeTakeFirst();
    if (existing) return existing;
  }
  throw new Error(`idempotency key ${input.key} is contended`);
}

/** Records the answer of a claimed key: its status, and its body unless it must not be kept (null). */
export async function completeIdempotencyKey(
  db: Kysely<Database>,
  input: IdempotencyOwner & { key: string; statusCode: number; responseBody: string | null },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: input.statusCode, response_body: input.responseBody })
    .where('account_id', '=', input.accountId)
    .where('principal_id', '=', input.principalId)
    .where('key', '=', input.key)
    .execute();
}

/** Forgets a claim whose request did not succeed, so the client may retry with the same key. */
export async function releaseIdempotencyKey(
  db: Kysely<Database>,
  input: IdempotencyOwner & { key: string },
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', input.accountId)
    .where('principal_id', '=', input.principalId)
    .where('key', '=', input.key)
    .execute();
}
