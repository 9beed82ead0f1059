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

describe('GET /api/v1/users/:externalId → 403', () => {
  it('refuses a publishable key', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, account.publishableKey, 'news', 'ios', { externalId: 'alice' });
    expectError(await get(t.app, '/api/v1/users/alice', account.publishableKey), 'forbidden');
  });
});
