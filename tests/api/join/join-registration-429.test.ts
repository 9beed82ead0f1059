import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { accountSlug, embeddedJoinKey, switchJoinPage } from '../../harness/join-pages.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/** The publishable keys' limits, small: a join page's key meets them like any app's key (src/http/auth.ts). */
const LIMITS = { publishableRateLimitPerAddress: 1, publishableRateLimitBurst: 3, publishableRateLimit: 1000 };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ...LIMITS, trustProxy: '127.0.0.1' });
});
afterAll(async () => t.close());

describe('registration from a join page is rate-limited → 429 rate_limited', () => {
  it('per client address, with Retry-After, and registers nothing beyond the burst', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await switchJoinPage(t, account, 'news', true);
    const key = embeddedJoinKey(
      (await t.app.inject({ method: 'GET', url: `/join/${await accountSlug(t, account.id)}/news` })).body,
    );
    const register = (address: string) =>
      post(
        t.app,
        '/api/v1/subscribers',
        key,
        { channelCode: 'news', platform: 'web', token: tokens.web() },
        { 'x-forwarded-for': address },
      );
    for (let i = 0; i < LIMITS.publishableRateLimitBurst; i += 1)
      expect((await register('203.0.113.7')).statusCode).toBe(201);
    expectError(await register('203.0.113.7'), 'rate_limited');
    expect((await accountCounts(t, account.id)).activeSubscribers).toBe(LIMITS.publishableRateLimitBurst);
    // Another visitor is not held up by the first.
    expect((await register('203.0.113.8')).statusCode).toBe(201);
  });
});
