import type { Kysely, Selectable } from 'kysely';
import { generateApiKey, hashApiKey, type ApiKeyKind } from '../domain/api-key-secret.ts';
import { isId, newId } from '../domain/ids.ts';
import type { ApiKeysTable, Database } from './schema.ts';
import { parseJson } from './store-errors.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface CreatedApiKey {
  row: ApiKeyRow;
  /** The full key: returned once, never stored. */
  value: string;
}

export async function createApiKey(
  db: Kysely<Database>,
  input: {
    accountId: string;
    name: string;
    kind: ApiKeyKind;
    channels: string[] | null;
    now: number;
    expiresAt?: number | null;
  },
): Promise<CreatedApiKey> {
  const generated = generateApiKey(input.kind);
  const row: ApiKeyRow = {
    id: newId('apiKey', input.now),
    account_id: input.accountId,
    name: input.name,
    kind: input.kind,
    key_hash: generated.hash,
    key_start: generated.start,
    channel_scope: input.channels ? JSON.stringify([...new Set(input.channels)]) : null,
    created_at: input.now,
    last_used_at: null,
    revoked_at: null,
    expires_at: input.expiresAt ?? null,
    replaced_by: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { row, value: generated.value };
}

/** Looks a presented key up by its SHA-256. (The accept path may serve it from src/http/api-key-cache.ts, and re-reads its standing in its transaction.) */
export async function findApiKeyByValue(db: Kysely<Database>, value: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashApiKey(value)).executeTakeFirst();
}

/** A string that is not an API key id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findApiKey(db: Kysely<Database>, id: string): Promise<ApiKeyRow | undefined> {
  if (!isId('apiKey', id)) return undefined;
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Kysely<Database>, accountId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export function channelScopeOf(row: ApiKeyRow): string[] | null {
  return parseJson<string[]>(row.channel_scope);
}

/** A key is usable when it is neither revoked nor past its expiry. */
export function isApiKeyActive(row: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now: number): boolean {
  return row.revoked_at === null && (row.expires_at === null || row.expires_at > now);
}

/**
 * Records use at most once a minute per key: an UPDATE per request would double the write load of every API call
 * for a timestamp that only needs minute precision in the dashboard.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

export async function touchApiKey(db: Kysely<Database>, row: ApiKeyRow, now: number): Promise<void> {
  if (row.last_used_at !== null && now - row.last_used_at < LAST_USED_RESOLUTION_MS) return;
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
  // The row may be the key cache's (src/http/api-key-cache.ts): keep it current so it is not touched again this minute.
  row.last_used_at = now;
}

export async function revokeApiKey(db: Kysely<Database>, id: string, now: number): Promise<ApiKeyRow | undefined> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return findApiKey(db, id);
}

/** The longest an old key may keep working after rotation (docs/design.md 2.2). */
export const MAX_ROTATION_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Rotation: a new key with the same name, kind and scope; the old one expires after `graceMs` (0 = at once) and
 * points at its replacement. Runs in one transaction so there is never a moment with neither key valid. Returns
 * undefined when the key is missing, revoked, expired or already rotated.
 *
 * Exactly one of several concurrent rotations wins: the old row is claimed by a conditional UPDATE (`replaced_by IS
 * NULL`, still active). On PostgreSQL that UPDATE takes the row lock, so a second rotation waits for the first to
 * commit and then re-checks the condition (READ COMMITTED re-evaluates it on the new row version) and updates
 * nothing; on SQLite BEGIN IMMEDIATE serializes the transactions. The loser rolls its new key back.
 */
export async function rotateApiKey(
  db: Kysely<Database>,
  id: string,
  input: { graceMs: number; now: number },
): Promise<CreatedApiKey | undefined> {
  try {
    return await db.transaction().execute(async (trx) => {
      const old = await findApiKey(trx, id);
      if (!old || !isApiKeyActive(old, input.now) || old.replaced_by !== null) return undefined;
      const created = await createApiKey(trx, {
        accountId: old.account_id,
        name: old.name,
        kind: old.kind,
        channels: channelScopeOf(old),
        now: input.now,
      });
      const expiresAt = input.now + input.graceMs;
      const claimed = await trx
        .updateTable('api_keys')
        .set({
          expires_at: old.expires_at === null ? expiresAt : Math.min(old.expires_at, expiresAt),
          replaced_by: created.row.id,
        })
        .where('id', '=', id)
        .where('replaced_by', 'is', null)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', input.now)]))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw new LostRotation();
      return created;
    });
  } catch (error) {
    if (error instanceof LostRotation) return undefined;
    throw error;
  }
}

/** Thrown inside the rotation transaction to roll back the new key when another rotation got there first. */
class LostRotation extends Error {}

/** One page of an account's keys, newest first (the dashboard's list), before the `before` id when given. */
export async function listApiKeysPage(
  db: Kysely<Database>,
  input: { accountId: string; before: string | null; limit: number },
): Promise<ApiKeyRow[]> {
  let query = db.selectFrom('api_keys').selectAll().where('account_id', '=', input.accountId);
  if (input.before) query = query.where('id', '<', input.before);
  return query.orderBy('id', 'desc').limit(input.limit).execute();
}
