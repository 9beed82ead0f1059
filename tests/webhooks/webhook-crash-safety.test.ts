import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { WEBHOOK_DELIVERY } from '../../src/webhooks/webhook-jobs.ts';
import { webhookHandlers } from '../../src/webhooks/webhook-worker.ts';
import { get, post } from '../harness/requests.ts';
import type { TestApp } from '../harness/test-app.ts';
import { waitFor } from '../harness/wait-for.ts';
import {
  createWebhook,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  verifyWithStandardWebhooks,
  webhookConfig,
  type Receiver,
  type TestWorker,
} from './webhook-harness.ts';

/**
 * A worker that stops in the middle of a delivery loses nothing: the attempt's job is still in the queue, leased to
 * the dead worker; when the lease lapses the rescuer hands it to another worker, which sends the message again with
 * the same webhook-id (receivers dedupe on it) and logs it once.
 */
const LEASE_MS = 30_000;

let t: TestApp;
let hook: Receiver;
const workers: TestWorker[] = [];
beforeAll(async () => {
  t = await startWebhookApp({ jobLease: LEASE_MS });
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  await hook?.close();
});
afterAll(async () => t?.close());

const messagesOf = async (key: string, id: string) =>
  (await get(t.app, `/api/v1/webhooks/${id}/messages`, key)).body.data as any[];

describe('webhook delivery across a worker crash', () => {
  it('a worker that dies after sending and before recording: the rescued job is delivered again with the same webhook-id', async () => {
    let answering = false;
    hook = await startReceiver(() => (answering ? { status: 200 } : 'hang'));
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const queued = (await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).body.data;

    // Worker A claims the attempt and sends it; the receiver holds the request; then A dies (no release, no record).
    const [job] = await t.queue.claim({ owner: 'worker-a', kinds: [WEBHOOK_DELIVERY], limit: 1, leaseMs: LEASE_MS });
    expect(job).toBeDefined();
    const handler = webhookHandlers({
      store: t.store,
      queue: t.queue,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      config: { ...t.config, ...webhookConfig({ webhookTimeout: 10_000 }) },
      secretKey: t.secretKey,
    })[WEBHOOK_DELIVERY]!;
    const death = new AbortController();
    const running = handler(job!, { owner: 'worker-a', signal: death.signal }).catch((error: Error) => error);
    await waitFor(() => hook.requests.length === 1, 10_000, 'worker A’s request');
    death.abort();
    expect(String(await running)).toContain('worker shutting down');
    expect(await t.queue.findJob(job!.id)).toMatchObject({ state: 'running', lease_owner: 'worker-a', attempt: 1 });
    expect((await messagesOf(account.secretKey, webhook.id))[0]).toMatchObject({ status: 'pending', attemptCount: 0 });

    // Its lease lapses; the rescuer returns the job; worker B delivers it.
    expect(await t.queue.rescueExpired([WEBHOOK_DELIVERY])).toBe(0);
    t.clock.advance(LEASE_MS + 1);
    expect(await t.queue.rescueExpired([WEBHOOK_DELIVERY])).toBe(1);
    answering = true;
    workers.push(await startWebhookWorker(t, { jobLease: LEASE_MS }));
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id))[0]?.status === 'delivered',
      10_000,
      'worker B’s delivery',
    );

    const [message] = await messagesOf(account.secretKey, webhook.id);
    expect(message).toMatchObject({ id: queued.id, attemptCount: 1 });
    expect(message.attempts.map((attempt: any) => attempt.statusCode)).toEqual([200]);
    expect(hook.requests.map((request) => request.headers['webhook-id'])).toEqual([queued.id, queued.id]);
    expect(hook.requests[1]!.body).toBe(hook.requests[0]!.body);
    for (const request of hook.requests) verifyWithStandardWebhooks(webhook.secret, request);
    expect(hook.requests.filter((request) => request.status === 200)).toHaveLength(1);
  });

  it('a worker stopped gracefully mid-delivery hands the attempt back uncounted, and the next worker delivers it', async () => {
    let answering = false;
    hook = await startReceiver(() => (answering ? { status: 204 } : 'hang'));
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const queued = (await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).body.data;

    const first = await startWebhookWorker(t, { jobLease: LEASE_MS, webhookTimeout: 10_000 });
    await waitFor(() => hook.requests.length === 1, 10_000, 'the first worker’s request');
    await first.worker.stop(50);
    const job = await t.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', WEBHOOK_DELIVERY)
      .where('payload', 'like', `%${queued.id}%`)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ state: 'available', attempt: 0, lease_owner: null });

    answering = true;
    workers.push(await startWebhookWorker(t, { jobLease: LEASE_MS }));
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id))[0]?.status === 'delivered',
      10_000,
      'the second worker’s delivery',
    );
    const [message] = await messagesOf(account.secretKey, webhook.id);
    expect(message.attempts.map((attempt: any) => attempt.statusCode)).toEqual([204]);
    expect(new Set(hook.requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([queued.id]));
  });
});
