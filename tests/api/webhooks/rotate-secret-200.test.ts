import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../../../src/domain/secret-box.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhooks/:id/rotate-secret → 200', () => {
  it('issues a new secret; the old one keeps signing for 24 hours by default', async () => {
    const account = await t.newAccount();
    const created = (await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL })).body.data;
    t.clock.advance(1_000);
    const data = expectSuccess(
      await post(t.app, `/api/v1/webhooks/${created.id}/rotate-secret`, account.secretKey, {}),
      200,
    );
    const { secret, previousSecretExpiresAt, updatedAt, ...rest } = data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(created.secret);
    expect(previousSecretExpiresAt).toBe(new Date(t.clock.now() + 24 * 60 * 60 * 1000).toISOString());
    expect(updatedAt).toBe(new Date(t.clock.now()).toISOString());
    const { secret: _old, previousSecretExpiresAt: _none, updatedAt: _created, ...before } = created;
    expect(rest).toEqual(before);
    const row = await t.store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(openSecret(t.secretKey, row.secret, created.id)).toBe(secret);
    expect(openSecret(t.secretKey, row.previous_secret!, created.id)).toBe(created.secret);
  });

  it.each([
    [0, null],
    [1, 1_000],
    [604_800, 604_800_000],
  ])('graceSeconds %s', async (graceSeconds, ms) => {
    const account = await t.newAccount();
    const created = (await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL })).body.data;
    const data = expectSuccess(
      await post(t.app, `/api/v1/webhooks/${created.id}/rotate-secret`, account.secretKey, { graceSeconds }),
      200,
    );
    expect(data.previousSecretExpiresAt).toBe(ms === null ? null : new Date(t.clock.now() + ms).toISOString());
    const row = await t.store.db
      .selectFrom('webhook_endpoints')
      .select(['previous_secret'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.previous_secret === null).toBe(ms === null);
  });
});
