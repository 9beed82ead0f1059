import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/webhooks/:id/messages → 400 validation_failed', () => {
  it.each([
    ['a cursor that is not a message id', 'cursor=whk_01hzzzzzzzzzzzzzzzzzzzzzzz', ['cursor']],
    ['an unknown status', 'status=sent', ['status']],
    ['limit 0', 'limit=0', ['limit']],
    ['limit 101', 'limit=101', ['limit']],
    ['an unknown parameter', 'eventType=webhook.test', ['eventType']],
  ])('refuses %s', async (_name, query, fields) => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    expectValidation(await get(t.app, `/api/v1/webhooks/${webhook}/messages?${query}`, account.secretKey), fields);
  });
});
