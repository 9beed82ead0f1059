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

describe('POST /api/v1/notify → 429 quota_exceeded', () => {
  it('shares the quota with POST /notifications and refuses once it is spent', async () => {
    const account = await t.newAccount({ channels: ['news'], plan: 'pro', limit: 2 });
    expect(
      (await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: '1' })).statusCode,
    ).toBe(201);
    expect((await post(t.app, '/api/v1/notify', account.secretKey, { channel: 'news', title: '2' })).statusCode).toBe(
      201,
    );
    const response = await post(t.app, '/api/v1/notify', account.secretKey, { channel: 'news', title: '3' });
    expect(expectError(response, 'quota_exceeded').details).toMatchObject({ plan: 'pro', limit: 2, used: 2 });
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 2, quotaUsed: 2 });
  });
});
