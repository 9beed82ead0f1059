import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL, startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhooks → 403 forbidden', () => {
  it('refuses a publishable key', async () => {
    const account = await t.newAccount();
    expectError(await post(t.app, '/api/v1/webhooks', account.publishableKey, { url: PUBLIC_URL }), 'forbidden');
    expect(await webhookState(t, account.id)).toEqual({ endpoints: 0, messages: 0, jobs: 0 });
  });

  it('refuses a secret key scoped to channels: webhooks report events of every channel', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const error = expectError(await post(t.app, '/api/v1/webhooks', scoped.value, { url: PUBLIC_URL }), 'forbidden');
    expect(error.message).toBe(
      'Webhooks report events of every channel: manage them with a secret key that has no channel scope.',
    );
    expect(await webhookState(t, account.id)).toEqual({ endpoints: 0, messages: 0, jobs: 0 });
  });
});
