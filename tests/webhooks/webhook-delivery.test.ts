import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../harness/requests.ts';
import { subscribe } from '../harness/sample-requests.ts';
import type { TestApp } from '../harness/test-app.ts';
import { waitFor } from '../harness/wait-for.ts';
import {
  createWebhook,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  TEST_TIMEOUT_MS,
  throughJitter,
  verifyWithStandardWebhooks,
  type Receiver,
  type TestWorker,
} from './webhook-harness.ts';

let t: TestApp;
let worker: TestWorker;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await startWebhookApp();
  worker = await startWebhookWorker(t);
});
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function messagesOf(key: string, webhookId: string): Promise<any[]> {
  const response = await get(t.app, `/api/v1/webhooks/${webhookId}/messages?limit=100`, key);
  expect(response.statusCode).toBe(200);
  return response.body.data;
}

describe('webhook delivery (Standard Webhooks)', () => {
  it('delivers a signed subscriber.created for a subscriber registered through the API', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const hook = await receiver();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const subscriberId = await subscribe(t.app, account.publishableKey, 'news', 'ios', { externalId: 'user-42' });

    await waitFor(() => hook.requests.length === 1, 10_000, 'the subscriber.created delivery');
    const [request] = hook.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/hooks/clarion');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(request!.headers['webhook-timestamp']).toBe(String(Math.floor(t.clock.now() / 1000)));
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = verifyWithStandardWebhooks(webhook.secret, request!);
    expect(payload).toEqual({
      type: 'subscriber.created',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      data: { subscriberId, channelCode: 'news', platform: 'ios', externalId: 'user-42', createdAt: payload.timestamp },
    });

    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id))[0]?.status === 'delivered',
      5_000,
      'the message to show delivered',
    );
    const [message] = await messagesOf(account.secretKey, webhook.id);
    expect(message).toMatchObject({
      id: request!.headers['webhook-id'],
      webhookId: webhook.id,
      eventType: 'subscriber.created',
      attemptCount: 1,
      nextAttemptAt: null,
    });
    expect(message.attempts).toEqual([
      {
        attempt: 1,
        kind: 'scheduled',
        url: hook.url,
        statusCode: 200,
        durationMs: expect.any(Number),
        responseExcerpt: '',
        error: null,
        attemptedAt: expect.any(String),
      },
    ]);
  });

  it('retries through 500s and timeouts with the same webhook-id and body until the receiver recovers; each event is delivered once', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    let healthy = false;
    const hook = await receiver((_request, index) =>
      healthy ? { status: 200, body: 'ok' } : index % 2 === 0 ? { status: 500, body: 'down for maintenance' } : 'hang',
    );
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const subscribers = [];
    for (let n = 0; n < 3; n += 1) subscribers.push(await subscribe(t.app, account.publishableKey, 'news'));
    expect((await post(t.app, `/api/v1/subscribers/${subscribers[0]}/unsubscribe`, account.secretKey)).statusCode).toBe(
      200,
    );
    const ids = async () => (await messagesOf(account.secretKey, webhook.id)).map((message) => message.id as string);

    // Attempt 1 of each of the four messages fails (a 500, or no answer within the timeout).
    await waitFor(
      async () =>
        (await messagesOf(account.secretKey, webhook.id)).filter((message) => message.attemptCount === 1).length === 4,
      10_000,
      'four failed first attempts',
    );
    // Attempt 2, 1 s later on the schedule (plus its jitter), fails too.
    t.clock.advance(throughJitter(1_000));
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id)).every((message) => message.attemptCount === 2),
      10_000,
      'four failed second attempts',
    );
    // The receiver recovers; attempt 3 comes 2 s later.
    healthy = true;
    t.clock.advance(throughJitter(2_000));
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id)).every((message) => message.status === 'delivered'),
      10_000,
      'every message delivered',
    );

    const messages = await messagesOf(account.secretKey, webhook.id);
    expect(messages).toHaveLength(4);
    for (const message of messages) {
      expect(
        message.attempts.map((attempt: any) =>
          attempt.statusCode === null ? attempt.error.split(':')[0] : attempt.statusCode,
        ),
      ).toEqual([expect.anything(), expect.anything(), 200]);
      for (const attempt of message.attempts.slice(0, 2)) {
        if (attempt.statusCode === null) expect(attempt.error).toBe(`timeout: no answer within ${TEST_TIMEOUT_MS} ms`);
        else expect(attempt).toMatchObject({ statusCode: 500, responseExcerpt: 'down for maintenance', error: null });
      }
    }
    // Every request of a message carries its id and the same bytes, and verifies with the official library.
    const byId = new Map<string, Set<string>>();
    for (const request of hook.requests) {
      const id = String(request.headers['webhook-id']);
      byId.set(id, (byId.get(id) ?? new Set()).add(request.body));
      verifyWithStandardWebhooks(webhook.secret, request);
    }
    expect([...byId.keys()].sort()).toEqual((await ids()).sort());
    for (const bodies of byId.values()) expect(bodies.size).toBe(1);
    // Exactly one successful delivery per webhook-id, and nothing after it.
    const delivered = hook.requests
      .filter((request) => request.status === 200)
      .map((request) => String(request.headers['webhook-id']));
    expect(delivered.sort()).toEqual((await ids()).sort());
    const types = hook.requests
      .filter((request) => request.status === 200)
      .map((request) => JSON.parse(request.body).type)
      .sort();
    expect(types).toEqual([
      'subscriber.created',
      'subscriber.created',
      'subscriber.created',
      'subscriber.unsubscribed',
    ]);
    const unsubscribed = hook.requests.find(
      (request) => request.status === 200 && JSON.parse(request.body).type === 'subscriber.unsubscribed',
    )!;
    expect(JSON.parse(unsubscribed.body).data).toMatchObject({ subscriberId: subscribers[0], reason: 'requested' });
    const before = hook.requests.length;
    t.clock.advance(60_000);
    // The worker has looked for due attempts with the clock a minute on, and run every one it found.
    await worker.worker.pool.whenIdle();
    expect(hook.requests.length).toBe(before);
  });

  it('gives up after the last attempt of the schedule and marks the message failed', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const hook = await receiver(() => ({ status: 503, headers: { 'retry-after': '1' } }));
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url, events: ['subscriber.created'] });
    await subscribe(t.app, account.publishableKey, 'news');
    for (const [attempt, wait] of [
      [1, 0],
      [2, 1_000],
      [3, 2_000],
      [4, 5_000],
    ] as const) {
      t.clock.advance(throughJitter(wait));
      await waitFor(
        async () => (await messagesOf(account.secretKey, webhook.id))[0]?.attemptCount === attempt,
        10_000,
        `attempt ${attempt}`,
      );
    }
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id))[0]?.status === 'failed',
      5_000,
      'the message to fail',
    );
    const [message] = await messagesOf(account.secretKey, webhook.id);
    expect(message).toMatchObject({ status: 'failed', attemptCount: 4, nextAttemptAt: null, deliveredAt: null });
    expect(message.attempts.map((attempt: any) => attempt.statusCode)).toEqual([503, 503, 503, 503]);
    t.clock.advance(60 * 60_000);
    await worker.worker.pool.whenIdle();
    expect(hook.requests).toHaveLength(4);
    // Four failures within seconds do not disable the endpoint.
    expect((await get(t.app, `/api/v1/webhooks/${webhook.id}`, account.secretKey)).body.data).toMatchObject({
      status: 'enabled',
      failingSince: expect.any(String),
    });
  });

  it('does not follow redirects: a 3xx is a failed attempt that says so', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const target = await receiver();
    const hook = await receiver(() => ({ status: 301, headers: { location: target.url } }));
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id))[0]?.attemptCount === 1,
      10_000,
      'the attempt',
    );
    const [message] = await messagesOf(account.secretKey, webhook.id);
    expect(message.status).toBe('pending');
    expect(message.attempts[0]).toMatchObject({
      statusCode: 301,
      error: `redirect not followed (Location: ${target.url}): answer 2xx at the registered URL`,
    });
    expect(target.requests).toHaveLength(0);
  });

  it('delivers only the event types an endpoint subscribes to, and nothing that happened before it was created', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const early = await subscribe(t.app, account.publishableKey, 'news');
    await waitFor(
      async () =>
        (
          await t.store.db
            .selectFrom('events')
            .select('relayed_at')
            .where('account_id', '=', account.id)
            .executeTakeFirstOrThrow()
        ).relayed_at !== null,
      5_000,
      'the first event relayed',
    );
    t.clock.advance(1);
    const everything = await receiver();
    const unsubscribesOnly = await receiver();
    await createWebhook(t, account.secretKey, { url: everything.url });
    await createWebhook(t, account.secretKey, { url: unsubscribesOnly.url, events: ['subscriber.unsubscribed'] });
    t.clock.advance(1);
    await subscribe(t.app, account.publishableKey, 'news');
    await post(t.app, `/api/v1/subscribers/${early}/unsubscribe`, account.secretKey);
    await waitFor(
      () => everything.requests.length === 2 && unsubscribesOnly.requests.length === 1,
      10_000,
      'the deliveries',
    );
    expect(everything.requests.map((request) => JSON.parse(request.body).type)).toEqual(
      expect.arrayContaining(['subscriber.created', 'subscriber.unsubscribed']),
    );
    expect(JSON.parse(unsubscribesOnly.requests[0]!.body)).toMatchObject({
      type: 'subscriber.unsubscribed',
      data: { subscriberId: early },
    });
  });
});
