import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/webhooks/:id → 200', () => {
  it('shows the endpoint as it was created, without the secret', async () => {
    const account = await t.newAccount();
    const { secret, ...created } = (
      await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL, events: ['delivery.failed'] })
    ).body.data;
    const response = await get(t.app, `/api/v1/webhooks/${created.id}`, account.secretKey);
    expect(expectSuccess(response, 200)).toEqual(created);
    expect(JSON.stringify(response.body)).not.toContain(secret);
  });

  it('shows why and since when a disabled endpoint is disabled', async () => {
    const account = await t.newAccount();
    const created = (await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL })).body.data;
    const at = t.clock.now();
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({
        status: 'disabled',
        disabled_reason: 'The endpoint answered 410 Gone.',
        disabled_at: at,
        failing_since: at - 1000,
      })
      .where('id', '=', created.id)
      .execute();
    expect(expectSuccess(await get(t.app, `/api/v1/webhooks/${created.id}`, account.secretKey), 200)).toMatchObject({
      status: 'disabled',
      disabledReason: 'The endpoint answered 410 Gone.',
      disabledAt: new Date(at).toISOString(),
      failingSince: new Date(at - 1000).toISOString(),
    });
  });
});
