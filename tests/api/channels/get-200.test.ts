import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/channels/:code → 200', () => {
  it('counts active subscribers per platform, leaving out unsubscribed ones and other channels', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    await subscribe(t.app, account.publishableKey, 'news', 'ios', { pushToStartToken: tokens.ios() });
    await subscribe(t.app, account.publishableKey, 'news', 'android');
    await subscribe(t.app, account.publishableKey, 'news', 'android');
    await subscribe(t.app, account.publishableKey, 'news', 'web');
    const gone = await subscribe(t.app, account.publishableKey, 'news', 'web');
    await post(t.app, `/api/v1/subscribers/${gone}/unsubscribe`, account.secretKey);
    await subscribe(t.app, account.publishableKey, 'sport', 'ios');
    const data = expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200);
    expect(data).toMatchObject({
      code: 'news',
      name: 'news',
      description: null,
      subscriberCount: { total: 4, ios: 1, android: 2, web: 1 },
    });
    expect(data.id).toMatch(/^chn_/);
  });

  it('is readable with a key scoped to it', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', scoped.value), 200).code).toBe('news');
  });
});
