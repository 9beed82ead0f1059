import { randomUUID } from 'node:crypto';
import { retryDelay, type RetryOptions } from './retry-policy.ts';

export interface RetryingFetchOptions extends RetryOptions {
  fetch: (request: Request) => Promise<Response>;
  /** Waits before a retry; tests pass one that records the wait instead of sleeping. */
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** A fresh Idempotency-Key for a POST that has none. */
  newIdempotencyKey: () => string;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const newIdempotencyKey = (): string => randomUUID();

/**
 * The fetch the client sends through (openapi-fetch's `fetch` option).
 *
 * Every POST gets an `Idempotency-Key` unless the caller gave one, and keeps it across its retries: a send whose
 * answer was lost and that is sent again is then one notification, not two (the server replays the first answer for
 * 24 hours; docs/api.md). GETs are safe to repeat as they are. Answers 429 and 503 are retried by the rules of
 * retry-policy.ts; the last answer, success or not, is returned to openapi-fetch as it came.
 */
export function retryingFetch(options: RetryingFetchOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    let keyed = request;
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      const headers = new Headers(request.headers);
      headers.set('idempotency-key', options.newIdempotencyKey());
      keyed = new Request(request, { headers });
    }
    for (let retry = 1; ; retry++) {
      // A clone per attempt: a request's body can be read once, and each attempt sends it whole.
      const response = await options.fetch(keyed.clone());
      const delay = retryDelay(response.status, response.headers.get('retry-after'), retry, options, options.now());
      if (delay === null) return response;
      // The refused answer is not read: cancelling its body frees the connection for the next attempt.
      await response.body?.cancel();
      await options.sleep(delay);
    }
  };
}
