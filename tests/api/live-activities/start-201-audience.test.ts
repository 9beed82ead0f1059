import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { patch, post } from '../../harness/requests.ts';
import { progressActivity, subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities with an audience → 201', () => {
  it('→ 201: recipientCount counts the targeted subscribers only', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const tagged = await subscribe(t.app, account.publishableKey, 'news', 'android');
    await subscribe(t.app, account.publishableKey, 'news', 'android');
    await subscribe(t.app, account.publishableKey, 'news', 'web', { externalId: 'alice' });
    expectSuccess(await patch(t.app, `/api/v1/subscribers/${tagged}`, account.secretKey, { tags: ['vip'] }), 200);
    expect(
      expectSuccess(
        await post(t.app, '/api/v1/live-activities', account.secretKey, {
          ...progressActivity('news'),
          tags: { all: ['vip'] },
        }),
        201,
      ).recipientCount,
    ).toBe(1);
    expect(
      expectSuccess(
        await post(t.app, '/api/v1/live-activities', account.secretKey, {
          ...progressActivity('news'),
          externalIds: ['alice', 'bob'],
        }),
        201,
      ).recipientCount,
    ).toBe(1);
    expect(
      expectSuccess(await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('news')), 201)
        .recipientCount,
    ).toBe(3);
  });
});
