import type { Kysely } from 'kysely';
import type { RecentAttempts } from '../domain/signin-limits.ts';
import type { Database, SigninAttemptsTable } from './schema.ts';

export type SigninAttemptKind = SigninAttemptsTable['kind'];

/**
 * The sign-in attempt log behind the sign-in rate limit. Kept in the database, not in memory, so the limit holds
 * across API processes and restarts (an in-memory count would give an attacker N processes × the limit).
 */
export async function recordSigninAttempt(
  db: Kysely<Database>,
  input: { kind: SigninAttemptKind; emailHash: string; ip: string; now: number },
): Promise<void> {
  await db.insertInto('signin_attempts').values({ kind: input.kind, email_hash: input.emailHash, ip: input.ip, created_at: input.now }).execute();
}

/** Attempts since `since`: failures for one email, or failures and sign-ups from one client address. */
export async function recentSigninAttempts(
  db: Kysely<Database>,
  input: { by: 'email_hash' | 'ip'; value: string; since: number },
): Promise<RecentAttempts> {
  let query = db
    .selectFrom('signin_attempts')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min<number | string | null>('created_at').as('oldest')])
    .where(input.by, '=', input.value)
    .where('created_at', '>', input.since);
  if (input.by === 'email_hash') query = query.where('kind', '=', 'signin_failure');
  const row = await query.executeTakeFirstOrThrow();
  return { count: Number(row.count), oldestAt: row.oldest === null ? null : Number(row.oldest) };
}

/** A successful sign-in forgets that email's failures. */
export async function clearSigninFailures(db: Kysely<Database>, emailHash: string): Promise<void> {
  await db.deleteFrom('signin_attempts').where('email_hash', '=', emailHash).where('kind', '=', 'signin_failure').execute();
}

/** Drops attempts older than the window, so the table stays as small as the traffic of the last 15 minutes. */
export async function pruneSigninAttempts(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom('signin_attempts').where('created_at', '<=', before).execute();
}
