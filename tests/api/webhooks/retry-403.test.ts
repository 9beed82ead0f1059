import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhook-messages/:id/retry → 403 forbidden', () => {
  it('refuses a publishable key and a channel-scoped key, and queues nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const { webhookMessage } = await insertWebhookFixture(t, account.id);
    const before = await webhookState(t, account.id);
    expectError(
      await post(t.app, `/api/v1/webhook-messages/${webhookMessage}/retry`, account.publishableKey),
      'forbidden',
    );
    expectError(await post(t.app, `/api/v1/webhook-messages/${webhookMessage}/retry`, scoped.value), 'forbidden');
    expect(await webhookState(t, account.id)).toEqual(before);
  });
});
