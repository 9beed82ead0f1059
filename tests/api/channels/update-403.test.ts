import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { joinKeyId } from '../../harness/join-pages.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels/:code/update → 403', () => {
  it('forbids a publishable key, so no app can switch on a join page', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectError(
      await post(t.app, '/api/v1/channels/news/update', account.publishableKey, { joinPage: true }),
      'forbidden',
    );
    expect(await joinKeyId(t, account.id, 'news')).toBeNull();
  });

  it.each(['sport', 'ghost'])(
    'answers channel_not_allowed to a key scoped elsewhere for "%s", whether or not it exists',
    async (code) => {
      const account = await t.newAccount({ channels: ['news', 'sport'] });
      const scoped = await account.key({ channels: ['news'] });
      expect(
        expectError(
          await post(t.app, `/api/v1/channels/${code}/update`, scoped.value, { joinPage: true }),
          'channel_not_allowed',
        ).details,
      ).toEqual({ channelCode: code });
      if (code === 'sport') expect(await joinKeyId(t, account.id, 'sport')).toBeNull();
    },
  );
});
