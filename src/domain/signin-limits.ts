/**
 * Sign-in rate limits. Within any 15 minutes: 5 failed sign-ins per email address (an online guesser gets 480 tries
 * a day at most, against a 10-character minimum password), and 20 failures or sign-ups per client address (so one
 * address cannot spread guesses over many emails, nor spend much scrypt time: each check costs ~50 ms of CPU).
 */
export const SIGNIN_WINDOW_MS = 15 * 60 * 1000;
export const SIGNIN_MAX_FAILURES_PER_EMAIL = 5;
export const SIGNIN_MAX_ATTEMPTS_PER_IP = 20;

export interface RecentAttempts {
  count: number;
  /** The oldest attempt still inside the window, or null when there is none. */
  oldestAt: number | null;
}

/**
 * Whole seconds until one more attempt is allowed, or 0 when it is allowed now. A refused attempt is not recorded,
 * so the count never passes `max` and the wait is until the oldest attempt leaves the window.
 */
export function signinRetryAfterSeconds(recent: RecentAttempts, max: number, now: number): number {
  if (recent.count < max || recent.oldestAt === null) return 0;
  return Math.max(1, Math.ceil((recent.oldestAt + SIGNIN_WINDOW_MS - now) / 1000));
}
