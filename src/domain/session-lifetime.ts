/**
 * How long a dashboard session lives. Idle for 7 days it ends; used daily it still ends 30 days after sign-in, so a
 * stolen cookie is not good forever. (GitHub keeps sessions two weeks, Stripe about a week of inactivity.)
 */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 30 * 24 * 60 * 60 * 1000;

/** Last use is recorded at most once a minute: a write per dashboard request buys nothing at day-scale timeouts. */
export const SESSION_TOUCH_RESOLUTION_MS = 60_000;

/** When a session created at `createdAt` and last used at `lastSeenAt` ends. */
export function sessionExpiry(createdAt: number, lastSeenAt: number): number {
  return Math.min(lastSeenAt + SESSION_IDLE_MS, createdAt + SESSION_MAX_MS);
}
