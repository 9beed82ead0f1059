import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  SIGNIN_MAX_ATTEMPTS_PER_IP,
  SIGNIN_PAIR_WINDOW_MS,
  SIGNIN_WINDOW_MS,
  signinPairRetryAfterSeconds,
  signinRetryAfterSeconds,
} from '../domain/signin-limits.ts';
import type { Database } from '../store/schema.ts';
import { recentAttemptsFromIp, recentPairFailures } from '../store/signin-attempts-queries.ts';
import { normalizeEmail } from '../store/users-queries.ts';
import { ApiError } from './api-error.ts';

/** The attempt log keys emails by SHA-256, so it never holds the addresses strangers typed in. */
export function emailHashOf(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('hex');
}

/**
 * 429 rate_limited with Retry-After when the client address has used up its attempts in the window, or when this
 * address must still wait after its failures for this email (src/domain/signin-limits.ts). Never by the email alone:
 * that would let anyone lock its owner out. Checked before the password, so a correct password sent while throttled is
 * refused too and the throttle reveals nothing about it.
 */
export async function assertSigninAllowed(
  db: Kysely<Database>,
  input: { ip: string; emailHash: string | null; now: number },
): Promise<void> {
  const fromIp = await recentAttemptsFromIp(db, { ip: input.ip, since: input.now - SIGNIN_WINDOW_MS });
  let wait = signinRetryAfterSeconds(fromIp, SIGNIN_MAX_ATTEMPTS_PER_IP, input.now);
  if (input.emailHash !== null) {
    const pair = await recentPairFailures(db, {
      emailHash: input.emailHash,
      ip: input.ip,
      since: input.now - SIGNIN_PAIR_WINDOW_MS,
    });
    wait = Math.max(wait, signinPairRetryAfterSeconds(pair, input.now));
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
  if (seconds === 1) return '1 second';
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}
