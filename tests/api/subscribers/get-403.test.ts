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

describe('GET /api/v1/subscribers/:id → 403', () => {
  it('refuses a publishable key, even for the subscriber it registered', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news');
    expectError(await get(t.app, `/api/v1/subscribers/${id}`, account.publishableKey), 'forbidden');
  });
});
