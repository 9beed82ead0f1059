import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhooks/:id/rotate-secret → 403 forbidden', () => {
  it('refuses a publishable key and a channel-scoped key, and keeps the secret', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const { webhook } = await insertWebhookFixture(t, account.id);
    const row = () =>
      t.store.db
        .selectFrom('webhook_endpoints')
        .select(['secret', 'previous_secret'])
        .where('id', '=', webhook)
        .executeTakeFirstOrThrow();
    const before = await row();
    expectError(
      await post(t.app, `/api/v1/webhooks/${webhook}/rotate-secret`, account.publishableKey, {}),
      'forbidden',
    );
    expectError(await post(t.app, `/api/v1/webhooks/${webhook}/rotate-secret`, scoped.value, {}), 'forbidden');
    expect(await row()).toEqual(before);
  });
});
