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

describe('POST /api/v1/webhooks/:id/test → 409 conflict', () => {
  it('refuses to send to a disabled endpoint, saying why it is disabled and how to re-enable it', async () => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    const reason = 'The endpoint answered 410 Gone at 2026-01-01T00:00:00.000Z, which asks senders to stop.';
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: reason, disabled_at: t.clock.now() })
      .where('id', '=', webhook)
      .execute();
    const before = await webhookState(t, account.id);
    const error = expectError(await post(t.app, `/api/v1/webhooks/${webhook}/test`, account.secretKey), 'conflict');
    expect(error.message).toBe(
      `This webhook endpoint is disabled (${reason}); re-enable it with POST /api/v1/webhooks/${webhook}/enable first.`,
    );
    expect(error.details).toEqual({ webhookId: webhook, status: 'disabled', disabledReason: reason });
    expect(await webhookState(t, account.id)).toEqual(before);
  });
});
