import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  createWebhook,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  verifyWithStandardWebhooks,
  type Answer,
  type Receiver,
  type TestWorker,
} from '../../webhooks/webhook-harness.ts';

let t: TestApp;
let worker: TestWorker;
let hook: Receiver;
let answer: Answer = { status: 200 };
beforeAll(async () => {
  // One attempt on the schedule, so a failure is final at once.
  t = await startWebhookApp({ webhookRetrySchedule: [0] });
  worker = await startWebhookWorker(t, { webhookRetrySchedule: [0] });
  hook = await startReceiver(() => answer);
});
afterAll(async () => {
  await hook?.close();
  await worker?.stop();
  await t?.close();
});

const messageOf = async (key: string, webhookId: string) =>
  (await get(t.app, `/api/v1/webhooks/${webhookId}/messages`, key)).body.data[0];

describe('POST /api/v1/webhook-messages/:id/retry → 202', () => {
  it('replays a failed message now, with the same webhook-id and body, freshly signed; the log shows a manual attempt', async () => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    answer = { status: 500 };
    const queued = (await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).body.data;
    await waitFor(
      async () => (await messageOf(account.secretKey, webhook.id)).status === 'failed',
      10_000,
      'the message to fail',
    );

    answer = { status: 200, body: 'ok now' };
    t.clock.advance(30_000);
    const data = expectSuccess(
      await post(t.app, `/api/v1/webhook-messages/${queued.id}/retry`, account.secretKey),
      202,
    );
    expect(data).toMatchObject({
      id: queued.id,
      status: 'pending',
      attemptCount: 1,
      attempts: [{ attempt: 1, statusCode: 500 }],
    });
    await waitFor(
      async () => (await messageOf(account.secretKey, webhook.id)).status === 'delivered',
      10_000,
      'the replay delivered',
    );

    const message = await messageOf(account.secretKey, webhook.id);
    expect(message.attempts.map((attempt: any) => [attempt.attempt, attempt.kind, attempt.statusCode])).toEqual([
      [1, 'scheduled', 500],
      [2, 'manual', 200],
    ]);
    const [first, replay] = hook.requests.filter((request) => request.headers['webhook-id'] === queued.id);
    expect(replay!.body).toBe(first!.body);
    expect(Number(replay!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp'])).toBe(30);
    expect(verifyWithStandardWebhooks(webhook.secret, replay!)).toEqual(queued.payload);
  });

  it('replays a delivered message too (receivers dedupe on webhook-id), and a failed replay leaves it failed', async () => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    answer = { status: 204 };
    const queued = (await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).body.data;
    await waitFor(
      async () => (await messageOf(account.secretKey, webhook.id)).status === 'delivered',
      10_000,
      'delivered',
    );
    expect((await post(t.app, `/api/v1/webhook-messages/${queued.id}/retry`, account.secretKey)).statusCode).toBe(202);
    await waitFor(
      async () => (await messageOf(account.secretKey, webhook.id)).attemptCount === 2,
      10_000,
      'the replay',
    );
    await waitFor(
      async () => (await messageOf(account.secretKey, webhook.id)).status === 'delivered',
      10_000,
      'still delivered',
    );

    answer = { status: 503 };
    expect((await post(t.app, `/api/v1/webhook-messages/${queued.id}/retry`, account.secretKey)).statusCode).toBe(202);
    await waitFor(
      async () => (await messageOf(account.secretKey, webhook.id)).attemptCount === 3,
      10_000,
      'the failed replay',
    );
    await waitFor(async () => (await messageOf(account.secretKey, webhook.id)).status === 'failed', 10_000, 'failed');
    expect(hook.requests.filter((request) => request.headers['webhook-id'] === queued.id)).toHaveLength(3);
  });
});
