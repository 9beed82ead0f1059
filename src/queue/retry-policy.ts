/**
 * When to try a failed job again: exponential backoff from 1 s, doubling per attempt, capped at 1 hour, with "equal
 * jitter" (half fixed, half random) so a burst of failures does not come back as a burst. A provider's Retry-After
 * wins when it asks for longer. With the default 25 attempts a job keeps trying for about a day (1+2+…+2048 s ≈ 68 min
 * for the first 12 attempts, then 13 more hours at the cap), which rides out a provider outage.
 */
export const RETRY_BASE_MS = 1_000;
export const RETRY_CAP_MS = 60 * 60 * 1000;

export function retryDelayMs(attempt: number, random: () => number = Math.random, retryAfterMs: number | null = null): number {
  const exponential = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}
