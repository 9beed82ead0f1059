import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { del, insertWebhookFixture, startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/webhooks/:id → 404 not_found', () => {
  it("answers not_found for an unknown or malformed id, and for another account's webhook (which stays)", async () => {
    const owner = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, owner.id);
    const other = await t.newAccount();
    for (const id of [newId('webhook'), 'whk_', webhook])
      expectError(await del(t, `/api/v1/webhooks/${id}`, other.secretKey), 'not_found');
    expect(await webhookState(t, owner.id)).toMatchObject({ endpoints: 1, messages: 1 });
  });

  it('answers not_found to a second delete', async () => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    expect((await del(t, `/api/v1/webhooks/${webhook}`, account.secretKey)).statusCode).toBe(200);
    expectError(await del(t, `/api/v1/webhooks/${webhook}`, account.secretKey), 'not_found');
  });
});
