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

describe('POST /api/v1/webhooks/:id/enable → 403 forbidden', () => {
  it('refuses a publishable key and a channel-scoped key, and leaves the endpoint disabled', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const { webhook } = await insertWebhookFixture(t, account.id);
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: 'gone', disabled_at: t.clock.now() })
      .where('id', '=', webhook)
      .execute();
    expectError(await post(t.app, `/api/v1/webhooks/${webhook}/enable`, account.publishableKey), 'forbidden');
    expectError(await post(t.app, `/api/v1/webhooks/${webhook}/enable`, scoped.value), 'forbidden');
    expect(
      (
        await t.store.db
          .selectFrom('webhook_endpoints')
          .select('status')
          .where('id', '=', webhook)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('disabled');
  });
});
