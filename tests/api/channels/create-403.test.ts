import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels → 403', () => {
  it('forbids a publishable key to create a channel', async () => {
    const account = await t.newAccount();
    expectError(await post(t.app, '/api/v1/channels', account.publishableKey, { code: 'news' }), 'forbidden');
    expect(await accountCounts(t, account.id)).toMatchObject({ channels: 0 });
  });

  it.each(['sport', 'ghost'])(
    'answers channel_not_allowed to a scoped key creating "%s" outside its scope, whether or not it exists',
    async (code) => {
      const account = await t.newAccount({ channels: ['news', 'sport'] });
      const scoped = await account.key({ channels: ['news'] });
      expect(
        expectError(await post(t.app, '/api/v1/channels', scoped.value, { code }), 'channel_not_allowed').details,
      ).toEqual({ channelCode: code });
      expect(await accountCounts(t, account.id)).toMatchObject({ channels: 2 });
    },
  );
});
