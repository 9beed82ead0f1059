import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/usage → 403 forbidden', () => {
  it('forbids a publishable key to read usage', async () => {
    const account = await t.newAccount();
    expectError(await get(t.app, '/api/v1/usage', account.publishableKey), 'forbidden');
  });
});
