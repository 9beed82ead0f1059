import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { SIGNIN_MAX_ATTEMPTS_PER_IP, SIGNIN_MAX_FAILURES_PER_EMAIL, SIGNIN_WINDOW_MS, signinRetryAfterSeconds } from '../domain/signin-limits.ts';
import type { Database } from '../store/schema.ts';
import { recentSigninAttempts } from '../store/signin-attempts-store.ts';
import { normalizeEmail } from '../store/users-store.ts';
import { ApiError } from './api-error.ts';

/** The attempt log keys emails by SHA-256, so it never holds the addresses strangers typed in. */
export function emailHashOf(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('hex');
}

/**
 * 429 rate_limited with Retry-After when the client address, or the email being signed in to, has used up its
 * attempts in the window (src/domain/signin-limits.ts). Checked before the password, so a correct password
 * sent while limited is refused too and the limit reveals nothing about it.
 */
export async function assertSigninAllowed(db: Kysely<Database>, input: { ip: string; emailHash: string | null; now: number }): Promise<void> {
  const since = input.now - SIGNIN_WINDOW_MS;
  let wait = signinRetryAfterSeconds(await recentSigninAttempts(db, { by: 'ip', value: input.ip, since }), SIGNIN_MAX_ATTEMPTS_PER_IP, input.now);
  if (input.emailHash !== null) {
    const byEmail = await recentSigninAttempts(db, { by: 'email_hash', value: input.emailHash, since });
    wait = Math.max(wait, signinRetryAfterSeconds(byEmail, SIGNIN_MAX_FAILURES_PER_EMAIL, input.now));
  }
  if (wait > 0) {
    throw new ApiError('rate_limited', {
      message: `Too many sign-in attempts; try again in ${formatWait(wait)}.`,
      headers: { 'retry-after': String(wait) },
      details: { retryAfterSeconds: wait },
    });
  }
}

function formatWait(seconds: number): string {
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}
