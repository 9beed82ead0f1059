import type { Kysely, SelectQueryBuilder } from 'kysely';
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
  await db
    .insertInto('signin_attempts')
    .values({ kind: input.kind, email_hash: input.emailHash, ip: input.ip, created_at: input.now })
    .execute();
}

/** Failed sign-ins and sign-ups from one client address since `since`, over all emails (the per-address ceiling). */
export async function recentAttemptsFromIp(
  db: Kysely<Database>,
  input: { ip: string; since: number },
): Promise<RecentAttempts> {
  return summarize(db.selectFrom('signin_attempts').where('ip', '=', input.ip).where('created_at', '>', input.since));
}

/** Failed sign-ins to one email from one client address since `since` (the per-pair growing delay). */
export async function recentPairFailures(
  db: Kysely<Database>,
  input: { emailHash: string; ip: string; since: number },
): Promise<RecentAttempts> {
  return summarize(
    db
      .selectFrom('signin_attempts')
      .where('email_hash', '=', input.emailHash)
      .where('ip', '=', input.ip)
      .where('kind', '=', 'signin_failure')
      .where('created_at', '>', input.since),
  );
}

async function summarize(query: SelectQueryBuilder<Database, 'signin_attempts', object>): Promise<RecentAttempts> {
  const row = await query
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.min<number | string | null>('created_at').as('oldest'),
      eb.fn.max<number | string | null>('created_at').as('latest'),
    ])
    .executeTakeFirstOrThrow();
  const at = (value: number | string | null) => (value === null ? null : Number(value));
  return { count: Number(row.count), oldestAt: at(row.oldest), latestAt: at(row.latest) };
}

/**
 * A successful sign-in forgets the failures to that email from that address only: failures from other addresses
 * (someone else guessing) keep slowing those addresses down.
 */
export async function clearSigninFailures(
  db: Kysely<Database>,
  input: { emailHash: string; ip: string },
): Promise<void> {
  await db
    .deleteFrom('signin_attempts')
    .where('email_hash', '=', input.emailHash)
    .where('ip', '=', input.ip)
    .where('kind', '=', 'signin_failure')
    .execute();
}

/** Drops attempts older than the longest window, so the table stays as small as the recent traffic. */
export async function pruneSigninAttempts(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom('signin_attempts').where('created_at', '<=', before).execute();
}
