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

describe('GET /api/v1/webhooks/:id/secret → 200', () => {
  it('returns the current signing secret, and the new one after a rotation', async () => {
    const account = await t.newAccount();
    const created = (await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL })).body.data;
    expect(expectSuccess(await get(t.app, `/api/v1/webhooks/${created.id}/secret`, account.secretKey), 200)).toEqual({
      webhookId: created.id,
      secret: created.secret,
      previousSecretExpiresAt: null,
    });
    const rotated = (
      await post(t.app, `/api/v1/webhooks/${created.id}/rotate-secret`, account.secretKey, { graceSeconds: 3600 })
    ).body.data;
    expect(expectSuccess(await get(t.app, `/api/v1/webhooks/${created.id}/secret`, account.secretKey), 200)).toEqual({
      webhookId: created.id,
      secret: rotated.secret,
      previousSecretExpiresAt: new Date(t.clock.now() + 3_600_000).toISOString(),
    });
  });
});
