import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { progressActivity, send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities → 429 quota_exceeded', () => {
  it('refuses a start once notifications have spent the quota, and stores nothing', async () => {
    const account = await t.newAccount({ channels: ['orders'], plan: 'free', limit: 1 });
    await send(t.app, account.secretKey, 'orders');
    const before = await accountState(t, account.id);
    const response = await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('orders'));
    expect(expectError(response, 'quota_exceeded').details).toMatchObject({ plan: 'free', limit: 1, used: 1 });
    expect(response.headers['x-quota-limit']).toBe('1');
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
