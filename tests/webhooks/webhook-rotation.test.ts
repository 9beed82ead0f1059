import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { get, post } from '../harness/requests.ts';
import type { TestApp } from '../harness/test-app.ts';
import { waitFor } from '../harness/wait-for.ts';
import {
  createWebhook,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  verifyWithStandardWebhooks,
  type Receiver,
  type TestWorker,
} from './webhook-harness.ts';

let t: TestApp;
let worker: TestWorker;
let hook: Receiver;
beforeAll(async () => {
  t = await startWebhookApp();
  worker = await startWebhookWorker(t);
  hook = await startReceiver();
});
afterAll(async () => {
  await hook?.close();
  await worker?.stop();
  await t?.close();
});

async function deliverTest(key: string, webhookId: string) {
  const before = hook.requests.length;
  expect((await post(t.app, `/api/v1/webhooks/${webhookId}/test`, key)).statusCode).toBe(202);
  await waitFor(() => hook.requests.length === before + 1, 10_000, 'the test delivery');
  return hook.requests[before]!;
}

describe('webhook secret rotation', () => {
  it('signs with the new and the old secret during the grace period, then with the new one only', async () => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const oldSecret: string = webhook.secret;

    const rotated = await post(t.app, `/api/v1/webhooks/${webhook.id}/rotate-secret`, account.secretKey, {
      graceSeconds: 60,
    });
    expect(rotated.statusCode).toBe(200);
    const newSecret: string = rotated.body.data.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.data.previousSecretExpiresAt).toBe(new Date(t.clock.now() + 60_000).toISOString());
    expect((await get(t.app, `/api/v1/webhooks/${webhook.id}/secret`, account.secretKey)).body.data).toEqual({
      webhookId: webhook.id,
      secret: newSecret,
      previousSecretExpiresAt: rotated.body.data.previousSecretExpiresAt,
    });

    const during = await deliverTest(account.secretKey, webhook.id);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWithStandardWebhooks(newSecret, during)).toMatchObject({ type: 'webhook.test' });
    expect(verifyWithStandardWebhooks(oldSecret, during)).toMatchObject({ type: 'webhook.test' });

    t.clock.advance(61_000);
    const after = await deliverTest(account.secretKey, webhook.id);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyWithStandardWebhooks(newSecret, after)).toMatchObject({ type: 'webhook.test' });
    expect(() => verifyWithStandardWebhooks(oldSecret, after)).toThrow();
    expect(
      (await get(t.app, `/api/v1/webhooks/${webhook.id}`, account.secretKey)).body.data.previousSecretExpiresAt,
    ).toBeNull();
  });

  it('graceSeconds 0 retires the old secret at once; a second rotation keeps only the latest previous secret', async () => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const at = (
      await post(t.app, `/api/v1/webhooks/${webhook.id}/rotate-secret`, account.secretKey, { graceSeconds: 0 })
    ).body.data;
    expect(at.previousSecretExpiresAt).toBeNull();
    const once = await deliverTest(account.secretKey, webhook.id);
    expect(verifyWithStandardWebhooks(at.secret, once)).toBeTruthy();
    expect(() => verifyWithStandardWebhooks(webhook.secret, once)).toThrow();

    const second = (await post(t.app, `/api/v1/webhooks/${webhook.id}/rotate-secret`, account.secretKey, {})).body.data;
    const third = (await post(t.app, `/api/v1/webhooks/${webhook.id}/rotate-secret`, account.secretKey, {})).body.data;
    expect(third.previousSecretExpiresAt).toBe(new Date(t.clock.now() + 24 * 60 * 60 * 1000).toISOString());
    const twice = await deliverTest(account.secretKey, webhook.id);
    const signatures = String(twice.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    const expected = (secret: string) =>
      new Webhook(secret).sign(
        String(twice.headers['webhook-id']),
        new Date(Number(twice.headers['webhook-timestamp']) * 1000),
        twice.body,
      );
    expect(signatures).toEqual([expected(third.secret), expected(second.secret)]);
  });
});
