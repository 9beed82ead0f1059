import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    rateLimitPerSecond: 1,
    rateLimitBurst: 2,
    publishableRateLimitPerAddress: 1,
    publishableRateLimitBurst: 2,
  });
});
afterAll(async () => t.close());

const usage = (key: string) => get(t.app, '/api/v1/usage', key);

describe('per-key rate limit → 429 rate_limited', () => {
  it('answers the third request of a burst of 2 with rate_limited and Retry-After, and refills as the clock moves', async () => {
    const account = await t.newAccount();
    expect((await usage(account.secretKey)).statusCode).toBe(200);
    expect((await usage(account.secretKey)).statusCode).toBe(200);
    const limited = await usage(account.secretKey);
    expect(expectError(limited, 'rate_limited').details).toEqual({ retryAfterSeconds: 1 });
    expect(limited.headers['retry-after']).toBe('1');

    t.clock.advance(999);
    expectError(await usage(account.secretKey), 'rate_limited');
    t.clock.advance(1);
    expect((await usage(account.secretKey)).statusCode).toBe(200);
    expectError(await usage(account.secretKey), 'rate_limited');

    t.clock.advance(10_000);
    expect((await usage(account.secretKey)).statusCode).toBe(200);
    expect((await usage(account.secretKey)).statusCode).toBe(200);
    expectError(await usage(account.secretKey), 'rate_limited');
  });

  it('counts each key on its own, publishable ones included', async () => {
    const account = await t.newAccount();
    await usage(account.secretKey);
    await usage(account.secretKey);
    expectError(await usage(account.secretKey), 'rate_limited');
    const other = await account.key({ name: 'other' });
    expect((await usage(other.value)).statusCode).toBe(200);
    const unknownDevice = { token: 'fcm-unknown-device' };
    for (let i = 0; i < 2; i += 1)
      expect(
        (await post(t.app, '/api/v1/subscribers/sub_x/unsubscribe', account.publishableKey, unknownDevice)).statusCode,
      ).toBe(404);
    expectError(
      await post(t.app, '/api/v1/subscribers/sub_x/unsubscribe', account.publishableKey, unknownDevice),
      'rate_limited',
    );
  });

  it('refuses a rate-limited send before doing anything: nothing stored, no quota used', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: '1' });
    await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: '2' });
    const before = await accountState(t, account.id);
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: '3' }),
      'rate_limited',
    );
    expect(await accountState(t, account.id)).toEqual(before);
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 2, quotaUsed: 2 });
  });

  it('does not spend a key’s tokens on requests without a valid key', async () => {
    const account = await t.newAccount();
    for (let i = 0; i < 5; i += 1) expectError(await usage('clr_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 'unauthorized');
    expect((await usage(account.secretKey)).statusCode).toBe(200);
  });
});
