import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, ISO_UTC } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  createWebhook,
  insertWebhookFixture,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  TEST_TIMEOUT_MS,
  throughJitter,
  type Receiver,
  type TestWorker,
} from '../../webhooks/webhook-harness.ts';

let t: TestApp;
let worker: TestWorker;
let hook: Receiver;
let answers: Array<'hang' | { status: number; body?: string }> = [];
beforeAll(async () => {
  t = await startWebhookApp();
  worker = await startWebhookWorker(t);
  hook = await startReceiver(() => answers.shift() ?? { status: 200, body: 'thanks' });
});
afterAll(async () => {
  await hook?.close();
  await worker?.stop();
  await t?.close();
});

const messages = async (key: string, id: string, query = '') =>
  get(t.app, `/api/v1/webhooks/${id}/messages${query}`, key);

describe('GET /api/v1/webhooks/:id/messages → 200', () => {
  it('shows every attempt: status code, duration, the first 1 KiB of the answer, the error, and when', async () => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    answers = [{ status: 500, body: 'x'.repeat(3000) }, 'hang', { status: 201, body: 'created' }];
    const queued = (await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).body.data;
    await waitFor(
      async () => (await messages(account.secretKey, webhook.id)).body.data[0].attemptCount === 1,
      10_000,
      'attempt 1',
    );
    t.clock.advance(throughJitter(1_000));
    await waitFor(
      async () => (await messages(account.secretKey, webhook.id)).body.data[0].attemptCount === 2,
      10_000,
      'attempt 2',
    );
    t.clock.advance(throughJitter(2_000));
    await waitFor(
      async () => (await messages(account.secretKey, webhook.id)).body.data[0].status === 'delivered',
      10_000,
      'attempt 3',
    );

    const response = await messages(account.secretKey, webhook.id);
    const [message] = expectSuccess(response, 200);
    expect(response.body.nextCursor).toBeNull();
    expect(message).toMatchObject({
      id: queued.id,
      status: 'delivered',
      attemptCount: 3,
      nextAttemptAt: null,
      deliveredAt: expect.stringMatching(ISO_UTC),
    });
    expect(message.attempts).toEqual([
      {
        attempt: 1,
        kind: 'scheduled',
        url: hook.url,
        statusCode: 500,
        durationMs: expect.any(Number),
        responseExcerpt: 'x'.repeat(1024),
        error: null,
        attemptedAt: expect.stringMatching(ISO_UTC),
      },
      {
        attempt: 2,
        kind: 'scheduled',
        url: hook.url,
        statusCode: null,
        durationMs: expect.any(Number),
        responseExcerpt: null,
        error: `timeout: no answer within ${TEST_TIMEOUT_MS} ms`,
        attemptedAt: expect.stringMatching(ISO_UTC),
      },
      {
        attempt: 3,
        kind: 'scheduled',
        url: hook.url,
        statusCode: 201,
        durationMs: expect.any(Number),
        responseExcerpt: 'created',
        error: null,
        attemptedAt: expect.stringMatching(ISO_UTC),
      },
    ]);
    expect(message.attempts[1].durationMs).toBeGreaterThanOrEqual(TEST_TIMEOUT_MS - 50);
    const times = message.attempts.map((attempt: any) => Date.parse(attempt.attemptedAt));
    // Each attempt is logged at the moment it ran: when the clock was moved past its (jittered) delay.
    expect(times[1] - times[0]).toBe(throughJitter(1_000));
    expect(times[2] - times[1]).toBe(throughJitter(2_000));
  });

  it('lists newest first, pages with nextCursor, and filters by status', async () => {
    const account = await t.newAccount();
    const { webhook, webhookMessage: failed } = await insertWebhookFixture(t, account.id, hook.url);
    t.clock.advance(1);
    const ids = [failed];
    for (let n = 0; n < 2; n += 1)
      ids.push((await post(t.app, `/api/v1/webhooks/${webhook}/test`, account.secretKey)).body.data.id);
    await waitFor(
      async () => (await messages(account.secretKey, webhook, '?status=delivered')).body.data.length === 2,
      10_000,
      'two deliveries',
    );

    const first = await messages(account.secretKey, webhook, '?limit=2');
    expect(first.body.data.map((message: any) => message.id)).toEqual([ids[2], ids[1]]);
    const second = await messages(account.secretKey, webhook, `?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((message: any) => message.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    expect(
      (await messages(account.secretKey, webhook, '?status=failed')).body.data.map((message: any) => message.id),
    ).toEqual([failed]);
    expect((await messages(account.secretKey, webhook, '?status=pending')).body.data).toEqual([]);
  });

  it('answers an empty log for a new endpoint', async () => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const response = await messages(account.secretKey, webhook.id);
    expect(expectSuccess(response, 200)).toEqual([]);
    expect(response.body.nextCursor).toBeNull();
  });
});
