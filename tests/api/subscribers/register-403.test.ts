import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/subscribers → 403 channel_not_allowed', () => {
  it.each([
    ['publishable', 'sport'],
    ['publishable', 'ghost'],
    ['secret', 'sport'],
    ['secret', 'ghost'],
  ] as const)(
    'refuses a %s key scoped to another channel for "%s", whether or not it exists',
    async (kind, channelCode) => {
      const account = await t.newAccount({ channels: ['news', 'sport'] });
      const scoped = await account.key({ kind, channels: ['news'] });
      const before = await accountState(t, account.id);
      const response = await post(t.app, '/api/v1/subscribers', scoped.value, {
        channelCode,
        platform: 'android',
        token: tokens.android(),
      });
      expect(expectError(response, 'channel_not_allowed').details).toEqual({ channelCode });
      expect(await accountState(t, account.id)).toEqual(before);
    },
  );

  it('lets the scoped publishable key register in its own channel', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ kind: 'publishable', channels: ['news'] });
    expect(
      (
        await post(t.app, '/api/v1/subscribers', scoped.value, {
          channelCode: 'news',
          platform: 'android',
          token: tokens.android(),
        })
      ).statusCode,
    ).toBe(201);
  });
});
