import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { openSecret } from '../../../src/domain/secret-box.ts';
import { expectSuccess, ISO_UTC } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  // Private addresses refused, as in production: the URLs below are public and need no DNS.
  t = await startWebhookApp({ allowPrivateWebhooks: false });
});
afterAll(async () => t.close());

describe('POST /api/v1/webhooks → 201', () => {
  it('registers an endpoint for every event type and shows its whsec_ secret once here', async () => {
    const account = await t.newAccount();
    const data = expectSuccess(await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }), 201);
    expect(data).toEqual({
      id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
      url: PUBLIC_URL,
      description: null,
      events: ['*'],
      status: 'enabled',
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      createdAt: expect.stringMatching(ISO_UTC),
      updatedAt: expect.stringMatching(ISO_UTC),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    // The official library takes the secret as it is shown.
    expect(() => new Webhook(data.secret)).not.toThrow();
  });

  it('keeps the chosen event types and description, and normalizes the URL', async () => {
    const account = await t.newAccount();
    const data = expectSuccess(
      await post(t.app, '/api/v1/webhooks', account.secretKey, {
        url: 'HTTPS://93.184.215.14:443/path?x=1',
        events: ['subscriber.created', 'delivery.failed'],
        description: 'Data warehouse',
      }),
      201,
    );
    expect(data).toMatchObject({
      url: 'https://93.184.215.14/path?x=1',
      events: ['subscriber.created', 'delivery.failed'],
      description: 'Data warehouse',
    });
  });

  it('accepts every event type by name, and a public IPv6 literal', async () => {
    const account = await t.newAccount();
    const events = [
      'subscriber.created',
      'subscriber.unsubscribed',
      'notification.delivered',
      'delivery.failed',
      'live_activity.started',
      'live_activity.updated',
      'live_activity.ended',
    ];
    const data = expectSuccess(
      await post(t.app, '/api/v1/webhooks', account.secretKey, { url: 'https://[2606:4700:4700::1111]/hook', events }),
      201,
    );
    expect(data.events).toEqual(events);
  });

  it('stores the secret encrypted (AES-256-GCM, bound to the webhook id), never in plain text', async () => {
    const account = await t.newAccount();
    const data = expectSuccess(await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }), 201);
    const row = await t.store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', data.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(data.secret.slice('whsec_'.length));
    expect(openSecret(t.secretKey, row.secret, data.id)).toBe(data.secret);
    expect(row.account_id).toBe(account.id);
  });

  it('gives every endpoint its own secret', async () => {
    const account = await t.newAccount();
    const one = expectSuccess(await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }), 201);
    const two = expectSuccess(await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }), 201);
    expect(one.secret).not.toBe(two.secret);
    expect(one.id).not.toBe(two.id);
  });
});
