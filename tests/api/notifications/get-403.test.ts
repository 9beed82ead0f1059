import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/notifications/:id → 403 forbidden', () => {
  it('forbids a publishable key to read a notification of its own account', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await send(t.app, account.secretKey, 'news');
    expectError(await get(t.app, `/api/v1/notifications/${id}`, account.publishableKey), 'forbidden');
  });
});
