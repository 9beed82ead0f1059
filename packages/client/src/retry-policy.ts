/**
 * When to send a request again, as pure rules (no timers, no I/O) so they are tested with tables of cases.
 *
 * Clarion answers 429 `rate_limited` with `Retry-After` (whole seconds) when a key's request rate is used up, and 503
 * `unavailable` while its storage is unreachable or it is shutting down (docs/errors.md). Both are worth another try
 * after a pause. A 429 WITHOUT `Retry-After` is `quota_exceeded`: the month's quota is spent and no pause helps, so
 * it is never retried. A wait longer than `maxDelayMs` is not worth blocking the caller for: the error is returned
 * at once, with the wait it asked for, and the caller decides.
 */
export interface RetryOptions {
  /** Further attempts after the first (default 3; 0 turns retries off). */
  maxRetries: number;
  /** The longest pause before one attempt (default 30 s); a longer `Retry-After` ends the retries. */
  maxDelayMs: number;
  /** The first pause for a 503 without `Retry-After`, doubled at each attempt (default 500 ms). */
  baseDelayMs: number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = { maxRetries: 3, maxDelayMs: 30_000, baseDelayMs: 500 };

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP-date (RFC 9110, section 10.2.3), null when absent or
 * unreadable. A date in the past means "now".
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its weekday and month ("Tue, 24 Nov 2026 12:00:30 GMT"); Date.parse alone would read "-3" as a year.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (1 for the first retry) of a request answered `status`, or null when
 * it must not be retried.
 */
export function retryDelay(
  status: number,
  retryAfter: string | null,
  retry: number,
  options: RetryOptions,
  now: number,
): number | null {
  if (retry > options.maxRetries) return null;
  if (status !== 429 && status !== 503) return null;
  const asked = parseRetryAfter(retryAfter, now);
  if (status === 429 && asked === null) return null;
  const delay = asked ?? options.baseDelayMs * 2 ** (retry - 1);
  return delay > options.maxDelayMs ? null : delay;
}

/**
 * How long to wait before retry number `retry` of a request that got no answer at all (the connection failed, or the
 * attempt timed out), or null when it must not be retried. The request may or may not have reached the server; a
 * POST is still safe to repeat because it carries the same Idempotency-Key (retrying-fetch.ts). The pauses are those
 * of a 503 without `Retry-After`.
 */
export function retryDelayWithoutAnswer(retry: number, options: RetryOptions): number | null {
  if (retry > options.maxRetries) return null;
  const delay = options.baseDelayMs * 2 ** (retry - 1);
  return delay > options.maxDelayMs ? null : delay;
}
