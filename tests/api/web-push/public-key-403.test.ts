import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/web-push/public-key → 403 channel_not_allowed', () => {
  it('refuses a key scoped to other channels, whether or not the channel exists', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ kind: 'publishable', channels: ['news'] });
    for (const code of ['sport', 'nothing-here']) {
      const response = await get(t.app, `/api/v1/web-push/public-key?channelCode=${code}`, scoped.value);
      expect(expectError(response, 'channel_not_allowed').details).toEqual({ channelCode: code });
    }
  });
});
