/**
 * Sign-in throttling (docs/dashboard.md "Sign-in rate limits"), the usual pairing of
 * https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html#protect-against-automated-attacks:
 *
 * - Per (email, client address): 5 failures free, then each further try waits 1 s, 2 s, 4 s … doubling, at most
 *   15 minutes, after the last failure. Counted over 24 hours, so a patient guesser settles at 4 tries an hour
 *   (about 100 a day) per address, against a 10-character minimum password. Nothing ever locks the account itself:
 *   its owner, on any other address, signs in at once however hard someone else hammers it.
 * - Per client address: 100 failed sign-ins and sign-ups in any 15 minutes, over all emails, so one address cannot
 *   spread guesses over many accounts, nor spend much scrypt time (~50 ms of CPU a check). 100, not fewer, because a
 *   company or mobile-carrier NAT puts many honest people behind one address.
 */
export const SIGNIN_WINDOW_MS = 15 * 60 * 1000;
export const SIGNIN_MAX_ATTEMPTS_PER_IP = 100;

export const SIGNIN_PAIR_WINDOW_MS = 24 * 60 * 60 * 1000;
export const SIGNIN_FREE_FAILURES_PER_PAIR = 5;
export const SIGNIN_FIRST_DELAY_MS = 1000;
export const SIGNIN_MAX_DELAY_MS = 15 * 60 * 1000;

/** The attempts log keeps nothing older than the longest window. */
export const SIGNIN_RETENTION_MS = Math.max(SIGNIN_WINDOW_MS, SIGNIN_PAIR_WINDOW_MS);

export interface RecentAttempts {
  count: number;
  /** The oldest attempt still inside the window, or null when there is none. */
  oldestAt: number | null;
  /** The newest attempt, or null when there is none. */
  latestAt: number | null;
}

/**
 * Per-address ceiling: whole seconds until one more attempt is allowed, or 0 when it is allowed now. A refused attempt
 * is not recorded, so the count never passes `max` and the wait is until the oldest attempt leaves the window.
 */
export function signinRetryAfterSeconds(recent: RecentAttempts, max: number, now: number): number {
  if (recent.count < max || recent.oldestAt === null) return 0;
  return Math.max(1, Math.ceil((recent.oldestAt + SIGNIN_WINDOW_MS - now) / 1000));
}

/** How long after its latest failure one (email, address) pair must wait, given its failures in the pair window. */
export function signinPairDelayMs(failures: number): number {
  if (failures < SIGNIN_FREE_FAILURES_PER_PAIR) return 0;
  // 2^40 is far past the cap already; the bound keeps the power finite.
  const doublings = Math.min(failures - SIGNIN_FREE_FAILURES_PER_PAIR, 40);
  return Math.min(SIGNIN_MAX_DELAY_MS, SIGNIN_FIRST_DELAY_MS * 2 ** doublings);
}

/** Whole seconds until the pair may try again, or 0 when it may now. */
export function signinPairRetryAfterSeconds(failures: RecentAttempts, now: number): number {
  const delay = signinPairDelayMs(failures.count);
  if (delay === 0 || failures.latestAt === null) return 0;
  const left = failures.latestAt + delay - now;
  return left <= 0 ? 0 : Math.max(1, Math.ceil(left / 1000));
}
