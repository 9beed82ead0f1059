/**
 * When to try a failed job again: exponential backoff from 1 s, doubling per attempt, capped at 1 hour, with "equal
 * jitter" (half fixed, half random) so a burst of failures does not come back as a burst. A provider's Retry-After
 * wins when it asks for longer. With the default 25 attempts a job keeps trying for about a day (1+2+…+2048 s ≈ 68 min
 * for the first 12 attempts, then 13 more hours at the cap), which rides out a provider outage.
 */
export const RETRY_BASE_MS = 1_000;
export const RETRY_CAP_MS = 60 * 60 * 1000;

/**
 * A push lost with its connection (the connection died under it, so no answer came) is sent again at once on a new
 * connection; only when that keeps happening round after round does it wait, a small "full jitter" backoff (random
 * between 0 and 250 ms × 2^(round−2)) that never grows past RECONNECT_RETRY_CAP_MS. Nothing said the provider is
 * down or overloaded, so neither the exponential backoff above nor a provider's wait (APNs' 15 minutes after a 5xx)
 * applies; a provider that really is down refuses the new connection, and that failure takes the backoff above.
 */
export const RECONNECT_RETRY_BASE_MS = 250;
export const RECONNECT_RETRY_CAP_MS = 5_000;

export function reconnectRetryDelayMs(round: number, random: () => number = Math.random): number {
  if (round <= 1) return 0;
  return Math.round(random() * Math.min(RECONNECT_RETRY_CAP_MS, RECONNECT_RETRY_BASE_MS * 2 ** (round - 2)));
}

export function retryDelayMs(
  attempt: number,
  random: () => number = Math.random,
  retryAfterMs: number | null = null,
): number {
  const exponential = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}
