import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities → 403', () => {
  it('forbids a publishable key to start an activity', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    expectError(
      await post(t.app, '/api/v1/live-activities', account.publishableKey, progressActivity('orders')),
      'forbidden',
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it.each(['sport', 'ghost'])(
    'answers channel_not_allowed for "%s", outside the key scope, whether or not it exists',
    async (channelCode) => {
      const account = await t.newAccount({ channels: ['orders', 'sport'] });
      const scoped = await account.key({ channels: ['orders'] });
      const before = await accountState(t, account.id);
      expect(
        expectError(
          await post(t.app, '/api/v1/live-activities', scoped.value, progressActivity(channelCode)),
          'channel_not_allowed',
        ).details,
      ).toEqual({ channelCode });
      expect(await accountState(t, account.id)).toEqual(before);
    },
  );
});
