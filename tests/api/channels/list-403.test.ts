import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/channels → 403 forbidden', () => {
  it('forbids a publishable key', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectError(await get(t.app, '/api/v1/channels', account.publishableKey), 'forbidden');
  });
});
