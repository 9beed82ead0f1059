import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const register = (key: string, body: Record<string, unknown>) => post(t.app, '/api/v1/subscribers', key, body);

describe('POST /api/v1/subscribers → 200 (already registered)', () => {
  it.each(['ios', 'android', 'web'] as const)(
    'returns the same %s subscriber for the same token, without a second subscriber or event',
    async (platform) => {
      const account = await t.newAccount({ channels: ['news'] });
      const token = tokens[platform]();
      const first = expectSuccess(
        await register(account.publishableKey, { channelCode: 'news', platform, token }),
        201,
      );
      // Counts, not contents: registering again refreshes the subscriber's updated_at, as it should.
      const before = await accountCounts(t, account.id);
      t.clock.advance(60_000);
      const again = expectSuccess(
        await register(account.publishableKey, { channelCode: 'news', platform, token }),
        200,
      );
      expect(again).toEqual(first);
      expect(await accountCounts(t, account.id)).toEqual(before);
    },
  );

  it('matches an iOS token whatever its letter case', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const token = tokens.ios();
    const first = expectSuccess(
      await register(account.publishableKey, { channelCode: 'news', platform: 'ios', token }),
      201,
    );
    expect(
      expectSuccess(
        await register(account.publishableKey, { channelCode: 'news', platform: 'ios', token: token.toUpperCase() }),
        200,
      ).id,
    ).toBe(first.id);
  });

  it('matches a browser by its endpoint, taking refreshed keys', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const subscription = tokens.web();
    const first = expectSuccess(
      await register(account.publishableKey, { channelCode: 'news', platform: 'web', token: subscription }),
      201,
    );
    const refreshed = { ...tokens.web(), endpoint: subscription.endpoint };
    expect(
      expectSuccess(
        await register(account.publishableKey, { channelCode: 'news', platform: 'web', token: refreshed }),
        200,
      ).id,
    ).toBe(first.id);
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).subscriberCount.web).toBe(
      1,
    );
  });

  it('answers 200 whichever kind of key registers the token again', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const token = tokens.android();
    const first = expectSuccess(
      await register(account.publishableKey, { channelCode: 'news', platform: 'android', token }),
      201,
    );
    expect(
      expectSuccess(
        await register(account.secretKey, { channelCode: 'news', platform: 'android', token, locale: 'fr' }),
        200,
      ).id,
    ).toBe(first.id);
  });
});
