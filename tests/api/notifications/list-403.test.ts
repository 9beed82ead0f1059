import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/notifications → 403', () => {
  it('forbids a publishable key', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectError(await get(t.app, '/api/v1/notifications', account.publishableKey), 'forbidden');
  });

  it.each(['sport', 'ghost'])(
    'answers channel_not_allowed for ?channelCode=%s outside the key scope, whether or not it exists',
    async (code) => {
      const account = await t.newAccount({ channels: ['news', 'sport'] });
      const scoped = await account.key({ channels: ['news'] });
      expect(
        expectError(await get(t.app, `/api/v1/notifications?channelCode=${code}`, scoped.value), 'channel_not_allowed')
          .details,
      ).toEqual({ channelCode: code });
    },
  );
});
