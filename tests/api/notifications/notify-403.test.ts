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

describe('POST /api/v1/notify → 403', () => {
  it('forbids a publishable key', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectError(
      await post(t.app, '/api/v1/notify', account.publishableKey, { channel: 'news', title: 'Hi' }),
      'forbidden',
    );
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
  });

  it.each(['sport', 'ghost'])(
    'answers channel_not_allowed for "%s", outside the key scope, whether or not it exists',
    async (channel) => {
      const account = await t.newAccount({ channels: ['news', 'sport'] });
      const scoped = await account.key({ channels: ['news'] });
      expect(
        expectError(await post(t.app, '/api/v1/notify', scoped.value, { channel, title: 'Hi' }), 'channel_not_allowed')
          .details,
      ).toEqual({ channelCode: channel });
      expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
    },
  );
});
