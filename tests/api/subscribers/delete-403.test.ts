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

describe('DELETE /api/v1/subscribers/:id → 403', () => {
  it('refuses a publishable key (apps use POST /subscribers/{id}/unsubscribe), and changes nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news');
    expectError(await del(t.app, `/api/v1/subscribers/${id}`, account.publishableKey), 'forbidden');
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200).status).toBe('active');
  });
});
