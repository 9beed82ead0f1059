import type { Kysely, Selectable } from 'kysely';
import { newId } from '../domain/ids.ts';
import { SESSION_TOUCH_RESOLUTION_MS, sessionExpiry } from '../domain/session-lifetime.ts';
import type { Database, SessionsTable } from './schema.ts';

export type SessionRow = Selectable<SessionsTable>;

export async function createSession(
  db: Kysely<Database>,
  input: { userId: string; accountId: string; tokenHash: string; now: number },
): Promise<SessionRow> {
  const row: SessionRow = {
    id: newId('session', input.now),
    token_hash: input.tokenHash,
    user_id: input.userId,
    account_id: input.accountId,
    created_at: input.now,
    last_seen_at: input.now,
    expires_at: sessionExpiry(input.now, input.now),
  };
  await db.insertInto('sessions').values(row).execute();
  return row;
}

/**
 * The live session with this token hash, if its user still belongs to the session's account: removing a member
 * ends their sessions in that account at once. No cache, so signing out counts from the very next request.
 */
export async function findLiveSession(
  db: Kysely<Database>,
  tokenHash: string,
  now: number,
): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('memberships', (join) =>
      join
        .onRef('memberships.account_id', '=', 'sessions.account_id')
        .onRef('memberships.user_id', '=', 'sessions.user_id'),
    )
    .selectAll('sessions')
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

/** Records use (at most once a minute) and moves the idle expiry forward. */
export async function touchSession(db: Kysely<Database>, row: SessionRow, now: number): Promise<void> {
  if (now - row.last_seen_at < SESSION_TOUCH_RESOLUTION_MS) return;
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now, expires_at: sessionExpiry(row.created_at, now) })
    .where('id', '=', row.id)
    .execute();
}

export async function setSessionAccount(db: Kysely<Database>, id: string, accountId: string): Promise<void> {
  await db.updateTable('sessions').set({ account_id: accountId }).where('id', '=', id).execute();
}

export async function deleteSession(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Drops ended sessions; run on each sign-in so the table holds live sessions only, without a separate job. */
export async function deleteEndedSessions(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}
