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
  throughJitter,
  type Receiver,
  type TestWorker,
} from './webhook-harness.ts';

const DAY = 24 * 60 * 60 * 1000;

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
const webhookOf = async (key: string, id: string) => (await get(t.app, `/api/v1/webhooks/${id}`, key)).body.data;
const messagesOf = async (key: string, id: string) =>
  (await get(t.app, `/api/v1/webhooks/${id}/messages`, key)).body.data as any[];

describe('disabling webhook endpoints', () => {
  it('410 Gone disables the endpoint at once, says why, fails its queued messages, and new events skip it until re-enabled', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    let gone = true;
    const hook = await receiver(() => (gone ? { status: 410, body: 'this endpoint was removed' } : { status: 200 }));
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const first = await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    const second = await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);

    await waitFor(
      async () => (await webhookOf(account.secretKey, webhook.id)).status === 'disabled',
      10_000,
      'the endpoint disabled',
    );
    const disabled = await webhookOf(account.secretKey, webhook.id);
    expect(disabled).toMatchObject({ status: 'disabled', disabledAt: expect.any(String) });
    expect(disabled.disabledReason).toMatch(/^The endpoint answered 410 Gone at .+, which asks senders to stop\.$/);
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id)).every((message) => message.status === 'failed'),
      10_000,
      'both messages failed',
    );
    // The first 410 ends it: the other message is failed without a request (or got its own 410 first, if it ran alongside).
    expect(hook.requests.length).toBeLessThanOrEqual(2);
    const attempts = (await messagesOf(account.secretKey, webhook.id)).flatMap((message) => message.attempts);
    expect(
      attempts.every(
        (attempt: any) => attempt.statusCode === 410 && attempt.responseExcerpt === 'this endpoint was removed',
      ),
    ).toBe(true);
    expect([first.body.data.id, second.body.data.id]).toContain(String(hook.requests[0]!.headers['webhook-id']));

    // Events while disabled are not queued for it; sending to it and replaying are refused with the reason.
    const requestsWhileDisabled = hook.requests.length;
    await subscribe(t.app, account.publishableKey, 'news');
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
      'the event relayed',
    );
    expect(await messagesOf(account.secretKey, webhook.id)).toHaveLength(2);
    const refused = await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    expect(refused.statusCode).toBe(409);
    expect(refused.body.error.message).toContain('410 Gone');

    // Re-enabled: the failure count starts afresh and new events flow again; a failed message can be replayed.
    gone = false;
    const enabled = await post(t.app, `/api/v1/webhooks/${webhook.id}/enable`, account.secretKey);
    expect(enabled.body.data).toMatchObject({
      status: 'enabled',
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
    });
    await subscribe(t.app, account.publishableKey, 'news');
    await waitFor(
      () =>
        hook.requests.some(
          (request) => request.status === 200 && JSON.parse(request.body).type === 'subscriber.created',
        ),
      10_000,
      'a delivery after re-enabling',
    );
    expect(
      (await post(t.app, `/api/v1/webhook-messages/${first.body.data.id}/retry`, account.secretKey)).statusCode,
    ).toBe(202);
    await waitFor(
      async () =>
        (await messagesOf(account.secretKey, webhook.id)).find((message) => message.id === first.body.data.id)
          ?.status === 'delivered',
      10_000,
      'the replay delivered',
    );
    expect(hook.requests.length).toBeGreaterThan(requestsWhileDisabled);
  });

  it('an endpoint failing continuously for 5 days is disabled at its next failure, and the account sees why', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    let healthy = false;
    const hook = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    const started = t.clock.now();
    await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    await waitFor(() => hook.requests.length === 1, 10_000, 'the first failure');
    await waitFor(
      async () => (await webhookOf(account.secretKey, webhook.id)).failingSince !== null,
      5_000,
      'the failure streak recorded',
    );
    expect((await webhookOf(account.secretKey, webhook.id)).failingSince).toBe(new Date(started).toISOString());

    // Four days later it still fails but stays enabled.
    t.clock.advance(4 * DAY);
    await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    await waitFor(() => hook.requests.length >= 3, 10_000, 'more failures');
    expect((await webhookOf(account.secretKey, webhook.id)).status).toBe('enabled');

    // A fifth day of failures: the next failed attempt disables it.
    t.clock.advance(DAY);
    await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    await waitFor(
      async () => (await webhookOf(account.secretKey, webhook.id)).status === 'disabled',
      10_000,
      'the endpoint disabled',
    );
    const disabled = await webhookOf(account.secretKey, webhook.id);
    expect(disabled.disabledReason).toBe(
      `Every delivery attempt has failed since ${new Date(started).toISOString()} (5 days or more without a successful one).`,
    );
    const listed = (await get(t.app, '/api/v1/webhooks', account.secretKey)).body.data.find(
      (item: any) => item.id === webhook.id,
    );
    expect(listed).toMatchObject({
      status: 'disabled',
      disabledReason: disabled.disabledReason,
      disabledAt: disabled.disabledAt,
    });
    await waitFor(
      async () => (await messagesOf(account.secretKey, webhook.id)).every((message) => message.status === 'failed'),
      10_000,
      'every message failed',
    );
    healthy = true;
  });

  it('a success ends the failure streak', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    let healthy = false;
    const hook = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
    await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    await waitFor(
      async () => (await webhookOf(account.secretKey, webhook.id)).failingSince !== null,
      10_000,
      'a failure streak',
    );
    healthy = true;
    t.clock.advance(throughJitter(1_000));
    await waitFor(
      async () => (await webhookOf(account.secretKey, webhook.id)).failingSince === null,
      10_000,
      'the streak ended',
    );
    t.clock.advance(5 * DAY);
    healthy = false;
    await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey);
    await waitFor(
      async () => (await webhookOf(account.secretKey, webhook.id)).failingSince !== null,
      10_000,
      'a new streak',
    );
    expect((await webhookOf(account.secretKey, webhook.id)).status).toBe('enabled');
  });
});
