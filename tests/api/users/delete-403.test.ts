import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { del, get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/users/:externalId → 403', () => {
  it('refuses a publishable key and a channel-scoped secret key, and erases nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, account.publishableKey, 'news', 'ios', { externalId: 'alice' });
    const scoped = await account.key({ channels: ['news'] });
    expectError(await del(t.app, '/api/v1/users/alice', account.publishableKey), 'forbidden');
    expectError(await del(t.app, '/api/v1/users/alice', scoped.value), 'forbidden');
    expect(expectSuccess(await get(t.app, '/api/v1/users/alice', account.secretKey), 200).subscribers).toHaveLength(1);
  });
});
