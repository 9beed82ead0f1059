import { toIso } from '../domain/clock.ts';

/**
 * What one delivery attempt's answer means (Standard Webhooks, docs/protocols.md section 5). Pure: the delivery
 * job feeds it the answer and the endpoint's failure streak and writes what it decides.
 *
 * - 2xx → delivered. Anything else — 3xx (redirects are not followed), 4xx, 5xx, timeout, connection error,
 *   refused address — is a failure.
 * - 410 Gone → the receiver says the endpoint is gone for good: the endpoint is disabled and the message failed.
 * - An endpoint with no successful attempt for 5 days (Svix's rule) is disabled at its next failure.
 * - Otherwise a scheduled attempt is retried after the next delay of CLARION_WEBHOOK_RETRY_SCHEDULE (default 0s, 5s,
 *   5m, 30m, 2h, 5h, 10h, 14h, 20h, 24h: ten attempts over 3 days 3½ hours to 3 days 19 hours), lengthened by a
 *   random part of up to RETRY_JITTER of itself, or later if the receiver's Retry-After asks for it; a manual replay
 *   (POST /webhook-messages/{id}/retry) is a single extra attempt.
 */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
/** A Retry-After beyond a day is capped: a receiver cannot park a message longer than the schedule's longest gap. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
/**
 * Each scheduled delay is lengthened by up to this fraction of itself, at random: the Standard Webhooks specification
 * recommends back-off with jitter (docs/protocols.md 5), so messages that failed together (a receiver's outage) do not
 * all come back at one moment. Only lengthened, so the schedule stays the least an attempt waits; with a fifth the
 * default schedule ends within 3 days 19 hours, well inside the 5 days that disable an endpoint.
 */
export const RETRY_JITTER = 0.2;

export interface AttemptFacts {
  /** HTTP status, or null when no answer came (timeout, connection error, refused address). */
  statusCode: number | null;
  /** The Retry-After header as received, if any. */
  retryAfter: string | null;
  /** 1-based position in the schedule of a scheduled attempt; null for a manual replay. */
  attempt: number | null;
  /** Delays before each attempt, in ms; schedule[k] is the wait before attempt k + 1. */
  schedule: readonly number[];
  /** Start of the endpoint's current failure streak, including this attempt if it failed; null after a success. */
  failingSince: number | null;
  now: number;
  /** A number in [0, 1) for the jitter (Math.random; fixed in tests). */
  random: () => number;
}

export interface AttemptVerdict {
  message: 'delivered' | 'retry' | 'failed';
  /** When the next scheduled attempt runs (only with 'retry'). */
  retryAt: number | null;
  /** Why the endpoint is now disabled, or null to leave it enabled. */
  disable: string | null;
}

export function isSuccessStatus(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode <= 299;
}

export function judgeAttempt(facts: AttemptFacts): AttemptVerdict {
  if (isSuccessStatus(facts.statusCode)) return { message: 'delivered', retryAt: null, disable: null };
  if (facts.statusCode === 410) {
    return {
      message: 'failed',
      retryAt: null,
      disable: `The endpoint answered 410 Gone at ${toIso(facts.now)}, which asks senders to stop.`,
    };
  }
  if (facts.failingSince !== null && facts.now - facts.failingSince >= DISABLE_AFTER_FAILING_MS) {
    return {
      message: 'failed',
      retryAt: null,
      disable: `Every delivery attempt has failed since ${toIso(facts.failingSince)} (5 days or more without a successful one).`,
    };
  }
  if (facts.attempt === null || facts.attempt >= facts.schedule.length)
    return { message: 'failed', retryAt: null, disable: null };
  const scheduled = facts.schedule[facts.attempt] ?? 0;
  const delay = Math.max(
    Math.round(scheduled * (1 + RETRY_JITTER * facts.random())),
    retryAfterMs(facts.retryAfter, facts.now) ?? 0,
  );
  return { message: 'retry', retryAt: facts.now + delay, disable: null };
}

/** The wait a Retry-After header asks for (delay-seconds or an HTTP date), capped at MAX_RETRY_AFTER_MS; null if absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // An HTTP-date ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse alone would also take "-5" or "1.5" as dates.
    if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
    const date = Date.parse(text);
    if (Number.isNaN(date)) return null;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** The delay before the first attempt (0 s by default: at once). */
export function firstAttemptDelay(schedule: readonly number[]): number {
  return schedule[0] ?? 0;
}
