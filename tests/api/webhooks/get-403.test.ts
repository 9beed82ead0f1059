import { afterAll, beforeAll, describe, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/webhooks/:id → 403 forbidden', () => {
  it('refuses a publishable key and a channel-scoped key, whether or not the webhook exists', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const { webhook } = await insertWebhookFixture(t, account.id);
    for (const id of [webhook, newId('webhook')]) {
      expectError(await get(t.app, `/api/v1/webhooks/${id}`, account.publishableKey), 'forbidden');
      expectError(await get(t.app, `/api/v1/webhooks/${id}`, scoped.value), 'forbidden');
    }
  });
});
