import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/webhooks/:id/messages → 403 forbidden', () => {
  it('refuses a publishable key and a channel-scoped key', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const { webhook } = await insertWebhookFixture(t, account.id);
    expectError(await get(t.app, `/api/v1/webhooks/${webhook}/messages`, account.publishableKey), 'forbidden');
    expectError(await get(t.app, `/api/v1/webhooks/${webhook}/messages`, scoped.value), 'forbidden');
  });
});
