import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { del, insertWebhookFixture, startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/webhooks/:id → 403 forbidden', () => {
  it('refuses a publishable key and a channel-scoped key, and deletes nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const { webhook } = await insertWebhookFixture(t, account.id);
    expectError(await del(t, `/api/v1/webhooks/${webhook}`, account.publishableKey), 'forbidden');
    expectError(await del(t, `/api/v1/webhooks/${webhook}`, scoped.value), 'forbidden');
    expect(await webhookState(t, account.id)).toMatchObject({ endpoints: 1, messages: 1 });
  });
});
