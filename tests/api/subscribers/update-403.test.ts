import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, patch } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/subscribers/:id → 403', () => {
  it('refuses a publishable key that does not send the registration token, and changes nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'alice' });
    expectError(
      await patch(t.app, `/api/v1/subscribers/${id}`, account.publishableKey, { externalId: 'mallory' }),
      'forbidden',
    );
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200).externalId).toBe(
      'alice',
    );
  });
});
