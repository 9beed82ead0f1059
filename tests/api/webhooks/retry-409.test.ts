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

describe('POST /api/v1/webhook-messages/:id/retry → 409 conflict', () => {
  it('refuses to replay to a disabled endpoint until it is re-enabled', async () => {
    const account = await t.newAccount();
    const { webhook, webhookMessage } = await insertWebhookFixture(t, account.id);
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({
        status: 'disabled',
        disabled_reason: 'Every delivery attempt has failed for 5 days.',
        disabled_at: t.clock.now(),
      })
      .where('id', '=', webhook)
      .execute();
    const before = await webhookState(t, account.id);
    const error = expectError(
      await post(t.app, `/api/v1/webhook-messages/${webhookMessage}/retry`, account.secretKey),
      'conflict',
    );
    expect(error.message).toContain('Every delivery attempt has failed for 5 days.');
    expect(error.details).toMatchObject({ webhookId: webhook, status: 'disabled' });
    expect(await webhookState(t, account.id)).toEqual(before);

    expect((await post(t.app, `/api/v1/webhooks/${webhook}/enable`, account.secretKey)).statusCode).toBe(200);
    expect((await post(t.app, `/api/v1/webhook-messages/${webhookMessage}/retry`, account.secretKey)).statusCode).toBe(
      202,
    );
  });
});
