import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/keys → 403 forbidden', () => {
  it('is for dashboard sessions only: no API key may list keys', async () => {
    const account = await t.newAccount();
    for (const key of [account.secretKey, account.publishableKey])
      expectError(await get(t.app, '/api/v1/keys', key), 'forbidden');
  });
});
