import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, ISO_UTC } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  createWebhook,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  verifyWithStandardWebhooks,
  webhookState,
  type Receiver,
  type TestWorker,
} from '../../webhooks/webhook-harness.ts';

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

describe('POST /api/v1/webhooks/:id/test → 202', () => {
  it('queues a webhook.test message and delivers it signed, like any other message', async () => {
    const account = await t.newAccount();
    // Subscribed to one event type only: a test message goes anyway.
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url, events: ['delivery.failed'] });
    const data = expectSuccess(await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey), 202);
    expect(data).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-z]{26}$/),
      webhookId: webhook.id,
      eventId: null,
      eventType: 'webhook.test',
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: expect.stringMatching(ISO_UTC),
      deliveredAt: null,
      createdAt: expect.stringMatching(ISO_UTC),
      payload: {
        type: 'webhook.test',
        timestamp: data.createdAt,
        data: { webhookId: webhook.id, message: expect.any(String) },
      },
      attempts: [],
    });

    await waitFor(
      () => hook.requests.some((request) => request.headers['webhook-id'] === data.id),
      10_000,
      'the test delivery',
    );
    const request = hook.requests.find((item) => item.headers['webhook-id'] === data.id)!;
    expect(verifyWithStandardWebhooks(webhook.secret, request)).toEqual(data.payload);
    await waitFor(
      async () =>
        (await get(t.app, `/api/v1/webhooks/${webhook.id}/messages`, account.secretKey)).body.data[0].status ===
        'delivered',
      5_000,
      'delivered',
    );
  });

  it('accepts an empty JSON body, and queues one message per call', async () => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    expect(
      (
        await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey, '', {
          'content-type': 'application/json',
        })
      ).statusCode,
    ).toBe(202);
    expect((await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).statusCode).toBe(202);
    expect((await webhookState(t, account.id)).messages).toBe(2);
  });
});
