import { randomUUID } from 'node:crypto';
import { ClarionConnectionError } from './clarion-connection-error.ts';
import { retryDelay, retryDelayWithoutAnswer, type RetryOptions } from './retry-policy.ts';

export interface RetryingFetchOptions extends RetryOptions {
  fetch: (request: Request) => Promise<Response>;
  /** Waits before a retry; tests pass one that records the wait instead of sleeping. */
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** A fresh Idempotency-Key for a POST that has none. */
  newIdempotencyKey: () => string;
  /** The longest one attempt may take, answer included, in milliseconds; 0: no limit. */
  timeoutMs: number;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const newIdempotencyKey = (): string => randomUUID();

/**
 * The fetch the client sends through (openapi-fetch's `fetch` option).
 *
 * Every POST gets an `Idempotency-Key` unless the caller gave one, and keeps it across its retries: a send whose
 * answer was lost and that is sent again is then one notification, not two (the server replays the first answer for
 * 24 hours; docs/api.md). GETs are safe to repeat as they are. Answers 429 and 503 are retried by the rules of
 * retry-policy.ts, and so are attempts that got no answer (connection failures, `timeoutMs` reached); the caller's
 * own abort signal ends the call at once, without a retry. The last answer, success or not, is returned to
 * openapi-fetch as it came; when no attempt got an answer, the call throws ClarionConnectionError.
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
      let response: Response;
      try {
        response = await options.fetch(attempt(keyed, options.timeoutMs));
      } catch (error) {
        // The caller gave up: that is an answer of its own, not a failure to retry.
        if (keyed.signal.aborted) throw error;
        const timedOut = isTimeout(error);
        const delay = retryDelayWithoutAnswer(retry, options);
        if (delay === null) {
          const what = timedOut ? `no answer within ${options.timeoutMs} ms` : 'the connection failed';
          throw new ClarionConnectionError(
            `${request.method} ${new URL(request.url).pathname}: ${what} (${retry} attempt${retry === 1 ? '' : 's'})`,
            timedOut,
            retry,
            { cause: error },
          );
        }
        await options.sleep(delay);
        continue;
      }
      const delay = retryDelay(response.status, response.headers.get('retry-after'), retry, options, options.now());
      if (delay === null) return response;
      // The refused answer is not read: cancelling its body frees the connection for the next attempt.
      await response.body?.cancel();
      await options.sleep(delay);
    }
  };
}

/** A clone per attempt (a request's body can be read once, and each attempt sends it whole), with its own deadline. */
function attempt(request: Request, timeoutMs: number): Request {
  const copy = request.clone();
  if (timeoutMs <= 0) return copy;
  return new Request(copy, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) });
}

/** AbortSignal.timeout() rejects a fetch with a DOMException named TimeoutError. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}
