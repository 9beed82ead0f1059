import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/webhooks → 400 validation_failed', () => {
  it.each([
    ['a cursor that is not a webhook id', 'cursor=ntf_01hzzzzzzzzzzzzzzzzzzzzzzz', ['cursor']],
    ['limit 0', 'limit=0', ['limit']],
    ['limit 101', 'limit=101', ['limit']],
    ['a limit that is not a number', 'limit=ten', ['limit']],
    ['an unknown parameter', 'status=enabled', ['status']],
  ])('refuses %s', async (_name, query, fields) => {
    const account = await t.newAccount();
    expectValidation(await get(t.app, `/api/v1/webhooks?${query}`, account.secretKey), fields);
  });
});
