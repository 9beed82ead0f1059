import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/live-activities → 403', () => {
  it('forbids a publishable key to list activities', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    expectError(await get(t.app, '/api/v1/live-activities', account.publishableKey), 'forbidden');
  });

  it.each(['sport', 'ghost'])(
    'answers channel_not_allowed for channelCode=%s outside the key scope, whether or not it exists',
    async (channelCode) => {
      const account = await t.newAccount({ channels: ['orders', 'sport'] });
      const scoped = await account.key({ channels: ['orders'] });
      expect(
        expectError(
          await get(t.app, `/api/v1/live-activities?channelCode=${channelCode}`, scoped.value),
          'channel_not_allowed',
        ).details,
      ).toEqual({ channelCode });
    },
  );
});
