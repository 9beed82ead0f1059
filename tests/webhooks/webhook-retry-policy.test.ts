import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_FAILING_MS,
  judgeAttempt,
  MAX_RETRY_AFTER_MS,
  RETRY_JITTER,
  retryAfterMs,
  type AttemptFacts,
} from '../../src/webhooks/webhook-retry-policy.ts';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const DEFAULT_SCHEDULE = [0, 5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H];
const now = Date.UTC(2026, 5, 1, 12, 0, 0);
const facts = (overrides: Partial<AttemptFacts>): AttemptFacts => ({
  statusCode: 500,
  retryAfter: null,
  attempt: 1,
  schedule: DEFAULT_SCHEDULE,
  failingSince: now,
  now,
  // No jitter unless a test asks for it, so the schedule reads as configured.
  random: () => 0,
  ...overrides,
});

describe('judging a webhook attempt', () => {
  it.each([
    ['200', { statusCode: 200, failingSince: null }, { message: 'delivered', retryAt: null, disable: null }],
    ['204', { statusCode: 204, failingSince: null }, { message: 'delivered', retryAt: null, disable: null }],
    [
      '299 on the last attempt',
      { statusCode: 299, attempt: 10, failingSince: null },
      { message: 'delivered', retryAt: null, disable: null },
    ],
    [
      'a manual 200',
      { statusCode: 200, attempt: null, failingSince: null },
      { message: 'delivered', retryAt: null, disable: null },
    ],
    ['500 after attempt 1: 5 s later', { statusCode: 500 }, { message: 'retry', retryAt: now + 5 * S, disable: null }],
    [
      'a timeout after attempt 2: 5 min later',
      { statusCode: null, attempt: 2 },
      { message: 'retry', retryAt: now + 5 * MIN, disable: null },
    ],
    [
      '301 (redirects are not followed)',
      { statusCode: 301, attempt: 3 },
      { message: 'retry', retryAt: now + 30 * MIN, disable: null },
    ],
    [
      '404 after attempt 9: 24 h later',
      { statusCode: 404, attempt: 9 },
      { message: 'retry', retryAt: now + 24 * H, disable: null },
    ],
    [
      '429 with Retry-After longer than the schedule',
      { statusCode: 429, retryAfter: '120' },
      { message: 'retry', retryAt: now + 120 * S, disable: null },
    ],
    [
      '503 with Retry-After shorter than the schedule',
      { statusCode: 503, attempt: 2, retryAfter: '1' },
      { message: 'retry', retryAt: now + 5 * MIN, disable: null },
    ],
    [
      '500 on the 10th and last attempt',
      { statusCode: 500, attempt: 10 },
      { message: 'failed', retryAt: null, disable: null },
    ],
    ['a failed manual replay', { statusCode: 500, attempt: null }, { message: 'failed', retryAt: null, disable: null }],
  ] as const)('%s', (_name, overrides, verdict) => {
    expect(judgeAttempt(facts(overrides))).toEqual(verdict);
  });

  it('disables on 410 Gone, on any attempt, manual too', () => {
    for (const attempt of [1, 10, null]) {
      expect(judgeAttempt(facts({ statusCode: 410, attempt }))).toEqual({
        message: 'failed',
        retryAt: null,
        disable: 'The endpoint answered 410 Gone at 2026-06-01T12:00:00.000Z, which asks senders to stop.',
      });
    }
  });

  it('disables when the failure streak reaches 5 days, not a millisecond earlier', () => {
    expect(judgeAttempt(facts({ failingSince: now - DISABLE_AFTER_FAILING_MS + 1 }))).toMatchObject({
      message: 'retry',
      disable: null,
    });
    expect(judgeAttempt(facts({ failingSince: now - DISABLE_AFTER_FAILING_MS }))).toEqual({
      message: 'failed',
      retryAt: null,
      disable:
        'Every delivery attempt has failed since 2026-05-27T12:00:00.000Z (5 days or more without a successful one).',
    });
  });

  it('a success never disables, however long the streak was', () => {
    expect(judgeAttempt(facts({ statusCode: 200, failingSince: now - 10 * DISABLE_AFTER_FAILING_MS }))).toMatchObject({
      message: 'delivered',
      disable: null,
    });
  });

  it('walks the default schedule: ten attempts over about 75.6 hours', () => {
    let at = now;
    let attempt = 1;
    for (;;) {
      const verdict = judgeAttempt(facts({ attempt, now: at, failingSince: now }));
      if (verdict.message !== 'retry') break;
      at = verdict.retryAt!;
      attempt += 1;
    }
    expect(attempt).toBe(10);
    expect((at - now) / H).toBeCloseTo(75.58, 1);
  });
});

describe('jitter on the schedule (Standard Webhooks: back-off with jitter)', () => {
  it('spreads each delay over up to a fifth more, never less, so failures at one moment do not come back at one moment', () => {
    expect(RETRY_JITTER).toBe(0.2);
    expect(judgeAttempt(facts({ attempt: 1, random: () => 0 })).retryAt).toBe(now + 5 * S);
    expect(judgeAttempt(facts({ attempt: 1, random: () => 0.5 })).retryAt).toBe(now + 5.5 * S);
    expect(judgeAttempt(facts({ attempt: 9, random: () => 0.999_999 })).retryAt).toBe(
      now + Math.round(24 * H * (1 + 0.2 * 0.999_999)),
    );
    const retries = new Set(
      Array.from({ length: 50 }, (_, i) => judgeAttempt(facts({ attempt: 3, random: () => i / 50 })).retryAt),
    );
    expect(retries.size).toBe(50);
    for (const retryAt of retries) expect(retryAt! - now).toBeGreaterThanOrEqual(30 * MIN);
  });

  it('a Retry-After longer than the jittered delay still wins', () => {
    expect(judgeAttempt(facts({ statusCode: 429, retryAfter: '600', attempt: 2, random: () => 1 })).retryAt).toBe(
      now + 600 * S,
    );
  });

  it('the default schedule with the most jitter still ends within the 5 days that disable an endpoint', () => {
    let at = now;
    for (let attempt = 1; ; attempt += 1) {
      const verdict = judgeAttempt(facts({ attempt, now: at, failingSince: now, random: () => 0.999_999 }));
      if (verdict.message !== 'retry') break;
      at = verdict.retryAt!;
    }
    expect((at - now) / H).toBeCloseTo(75.58 * 1.2, 0);
    expect(at - now).toBeLessThan(DISABLE_AFTER_FAILING_MS);
  });
});

describe('Retry-After', () => {
  it.each([
    [null, null],
    ['0', 0],
    ['30', 30_000],
    [' 7 ', 7_000],
    ['999999999', MAX_RETRY_AFTER_MS],
    [new Date(now + 90_000).toUTCString(), 90_000],
    [new Date(now - 90_000).toUTCString(), 0],
    ['soon', null],
    ['-5', null],
    ['1.5', null],
  ])('%s → %s', (value, ms) => {
    expect(retryAfterMs(value, now)).toBe(ms);
  });
});
