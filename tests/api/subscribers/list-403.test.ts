import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/subscribers → 403', () => {
  it('refuses a publishable key: an app may never list subscribers', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, account.publishableKey, 'news');
    expectError(await get(t.app, '/api/v1/subscribers', account.publishableKey), 'forbidden');
    expectError(await get(t.app, '/api/v1/subscribers?channelCode=news', account.publishableKey), 'forbidden');
  });

  it('refuses a channel outside the key scope, whether or not it exists', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ channels: ['news'] });
    expectError(await get(t.app, '/api/v1/subscribers?channelCode=sport', scoped.value), 'channel_not_allowed');
    expectError(await get(t.app, '/api/v1/subscribers?channelCode=nowhere', scoped.value), 'channel_not_allowed');
  });
});
