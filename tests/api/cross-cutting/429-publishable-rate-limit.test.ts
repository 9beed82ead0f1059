import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/domain/clock.ts';
import { PUBLISHABLE_CEILING_BURST_SECONDS } from '../../../src/http/auth.ts';
import { RateLimiter } from '../../../src/http/rate-limiter.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/**
 * The app behind a trusted proxy on 127.0.0.1 (inject's own address), so X-Forwarded-For names the device. The
 * secret-key limit is as small as the per-address one, to show the two differ.
 */
const LIMITS = {
  rateLimitPerSecond: 1,
  rateLimitBurst: 2,
  publishableRateLimitPerAddress: 1,
  publishableRateLimitBurst: 2,
  publishableRateLimit: 5,
};
const CEILING_BURST = LIMITS.publishableRateLimit * PUBLISHABLE_CEILING_BURST_SECONDS;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ...LIMITS, trustProxy: '127.0.0.1' });
});
afterAll(async () => t.close());

/** A publishable-key call from one device: unsubscribing an unknown subscriber (with a token) is cheap and answers 404. */
const fromDevice = (app: TestApp['app'], key: string, address: string) =>
  post(
    app,
    '/api/v1/subscribers/sub_01h00000000000000000000000/unsubscribe',
    key,
    { token: 'fcm-unknown-device' },
    { 'x-forwarded-for': address },
  );

const address = (i: number) => `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;

describe('publishable keys are limited per (key, client address), under a per-key ceiling → 429 rate_limited', () => {
  it(`lets ${CEILING_BURST} devices behind one key open the app at once, each within its own burst`, async () => {
    const account = await t.newAccount();
    for (let i = 0; i < CEILING_BURST; i += 1) {
      expect((await fromDevice(t.app, account.publishableKey, address(i))).statusCode, `device ${i}`).toBe(404);
    }
    // The ceiling over all devices is spent: a new device waits, in the envelope, with Retry-After.
    const limited = await fromDevice(t.app, account.publishableKey, address(CEILING_BURST));
    expect(expectError(limited, 'rate_limited').message).toMatch(/from all addresses together/);
    expect(limited.headers['retry-after']).toBe('1');
    // …and refills at the ceiling's rate: a second gives five more devices.
    t.clock.advance(1000);
    for (let i = 0; i < LIMITS.publishableRateLimit; i += 1)
      expect((await fromDevice(t.app, account.publishableKey, address(CEILING_BURST + 1 + i))).statusCode).toBe(404);
    expectError(await fromDevice(t.app, account.publishableKey, address(CEILING_BURST + 100)), 'rate_limited');
  });

  it('limits one device on its own, leaving the other devices of the same key alone', async () => {
    const account = await t.newAccount();
    const device = '198.51.100.7';
    for (let i = 0; i < LIMITS.publishableRateLimitBurst; i += 1)
      expect((await fromDevice(t.app, account.publishableKey, device)).statusCode).toBe(404);
    const limited = await fromDevice(t.app, account.publishableKey, device);
    expect(expectError(limited, 'rate_limited')).toMatchObject({
      message: expect.stringMatching(/from this address/),
      details: { retryAfterSeconds: 1 },
    });
    expect((await fromDevice(t.app, account.publishableKey, '198.51.100.8')).statusCode).toBe(404);
    t.clock.advance(1000);
    expect((await fromDevice(t.app, account.publishableKey, device)).statusCode).toBe(404);
  });

  it('keeps secret keys per key, whatever address they come from', async () => {
    const account = await t.newAccount();
    const usage = (i: number) => get(t.app, '/api/v1/usage', account.secretKey, { 'x-forwarded-for': address(i) });
    for (let i = 0; i < LIMITS.rateLimitBurst; i += 1) expect((await usage(i)).statusCode).toBe(200);
    expectError(await usage(99), 'rate_limited');
  });

  it('believes X-Forwarded-For only from a trusted proxy: without one, every device is the proxy', async () => {
    const untrusted = await startTestApp(LIMITS);
    try {
      const account = await untrusted.newAccount();
      for (let i = 0; i < LIMITS.publishableRateLimitBurst; i += 1)
        expect((await fromDevice(untrusted.app, account.publishableKey, address(i))).statusCode).toBe(404);
      expectError(await fromDevice(untrusted.app, account.publishableKey, address(50)), 'rate_limited');
    } finally {
      await untrusted.close();
    }
  });
});

describe('RateLimiter memory', () => {
  it('keeps at most maxBuckets buckets, dropping the one idle longest', () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter(1, 1, clock, 100);
    for (let i = 0; i < 10_000; i += 1) limiter.take(`key ${i}`);
    expect(limiter.size).toBe(100);
    // The most recent callers are still limited; the oldest were dropped and start with a full bucket.
    expect(limiter.take('key 9999')).toBe(1);
    expect(limiter.take('key 0')).toBe(0);
  });

  it('sweeps buckets that have refilled', () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter(1, 2, clock);
    for (let i = 0; i < 50; i += 1) limiter.take(`key ${i}`);
    clock.advance(999);
    limiter.sweep();
    expect(limiter.size).toBe(50);
    clock.advance(1);
    limiter.sweep();
    expect(limiter.size).toBe(0);
  });
});
