import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_OPTIONS, parseRetryAfter, retryDelay } from '../../packages/client/src/retry-policy.ts';

const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    [null, null],
    ['7', 7_000],
    [' 0 ', 0],
    ['Tue, 24 Nov 2026 12:00:30 GMT', 30_000],
    ['Tue, 24 Nov 2026 11:00:00 GMT', 0],
    ['soon', null],
    ['-3', null],
  ])('%j → %j ms', (header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });
});

describe('retryDelay', () => {
  const options = DEFAULT_RETRY_OPTIONS;
  it.each([
    { why: '429 rate_limited waits what Retry-After says', status: 429, header: '2', retry: 1, expected: 2_000 },
    {
      why: '429 without Retry-After is quota_exceeded: never retried',
      status: 429,
      header: null,
      retry: 1,
      expected: null,
    },
    { why: '503 with Retry-After waits for it', status: 503, header: '1', retry: 2, expected: 1_000 },
    { why: '503 without Retry-After backs off from 500 ms', status: 503, header: null, retry: 1, expected: 500 },
    { why: '… doubling at each retry', status: 503, header: null, retry: 3, expected: 2_000 },
    { why: 'after maxRetries retries, no more', status: 503, header: '1', retry: 4, expected: null },
    { why: 'a wait over maxDelayMs is not waited for', status: 429, header: '31', retry: 1, expected: null },
    { why: 'exactly maxDelayMs still is', status: 429, header: '30', retry: 1, expected: 30_000 },
    { why: 'other statuses are answers, not retried', status: 500, header: '1', retry: 1, expected: null },
    { why: '409 conflict is not retried', status: 409, header: null, retry: 1, expected: null },
  ])('$why', ({ status, header, retry, expected }) => {
    expect(retryDelay(status, header, retry, options, NOW)).toBe(expected);
  });

  it('maxRetries 0 turns retries off', () => {
    expect(retryDelay(503, '1', 1, { ...options, maxRetries: 0 }, NOW)).toBeNull();
  });
});
