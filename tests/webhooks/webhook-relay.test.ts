import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { JobQueue } from '../../src/queue/job-queue.ts';
import type { EnqueueInput } from '../../src/queue/job-types.ts';
import { recordEvent, type EventType } from '../../src/store/events-queries.ts';
import type { Database } from '../../src/store/schema.ts';
import { WEBHOOK_DELIVERY } from '../../src/webhooks/webhook-jobs.ts';
import { relayEvents, type WebhookRelayDependencies } from '../../src/webhooks/webhook-relay.ts';
import { post } from '../harness/requests.ts';
import type { TestApp } from '../harness/test-app.ts';
import { createWebhook, startWebhookApp, TEST_SCHEDULE } from './webhook-harness.ts';

/**
 * The relay on its own (no worker running): events → one message per subscribed endpoint and one delivery job
 * each, in one transaction, exactly once — with relays running concurrently, and after a relay that died mid-way.
 */
let t: TestApp;
let deps: WebhookRelayDependencies;
beforeAll(async () => {
  t = await startWebhookApp();
  deps = { store: t.store, queue: t.queue, clock: t.clock, schedule: TEST_SCHEDULE };
});
afterAll(async () => t?.close());

async function record(accountId: string, type: EventType, data: Record<string, unknown> = {}): Promise<string> {
  return recordEvent(t.store.db, { accountId, type, data, now: t.clock.now() });
}

async function drain(relay = deps): Promise<void> {
  while ((await relayEvents(relay)) > 0) {
    // until no unrelayed event is left
  }
}

async function messagesOf(accountId: string) {
  return t.store.db
    .selectFrom('webhook_messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

async function jobsFor(messageIds: string[]) {
  const jobs = await t.store.db.selectFrom('jobs').selectAll().where('kind', '=', WEBHOOK_DELIVERY).execute();
  return jobs.filter((job) => messageIds.includes(JSON.parse(job.payload).messageId));
}

async function unrelayed(accountId: string): Promise<number> {
  return (
    await t.store.db
      .selectFrom('events')
      .select('id')
      .where('account_id', '=', accountId)
      .where('relayed_at', 'is', null)
      .execute()
  ).length;
}

describe('the webhook relay', () => {
  it('creates one message and one first-attempt job per (event, subscribed endpoint), and marks the events relayed', async () => {
    const account = await t.newAccount();
    const all = await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/all' });
    const created = await createWebhook(t, account.secretKey, {
      url: 'http://127.0.0.1:9/created',
      events: ['subscriber.created', 'notification.delivered'],
    });
    t.clock.advance(1);
    const events = [
      await record(account.id, 'subscriber.created', { subscriberId: 'sub_1' }),
      await record(account.id, 'subscriber.unsubscribed', { subscriberId: 'sub_1', reason: 'requested' }),
      await record(account.id, 'notification.delivered', { notificationId: 'ntf_1' }),
    ];
    await drain();

    const messages = await messagesOf(account.id);
    expect(messages.map((message) => [message.event_id, message.endpoint_id]).sort()).toEqual(
      [
        [events[0], all.id],
        [events[1], all.id],
        [events[2], all.id],
        [events[0], created.id],
        [events[2], created.id],
      ].sort(),
    );
    for (const message of messages) {
      expect(message).toMatchObject({ status: 'pending', attempt_count: 0, next_attempt_at: t.clock.now() });
      expect(JSON.parse(message.payload)).toEqual({
        type: message.event_type,
        timestamp: new Date(t.clock.now()).toISOString(),
        data: expect.any(Object),
      });
    }
    const jobs = await jobsFor(messages.map((message) => message.id));
    expect(jobs).toHaveLength(5);
    expect(jobs.map((job) => JSON.parse(job.payload).attempt)).toEqual([1, 1, 1, 1, 1]);
    expect(await unrelayed(account.id)).toBe(0);

    await drain();
    expect(await messagesOf(account.id)).toHaveLength(5);
  });

  it('gives an endpoint nothing that happened before it was created, and nothing while it is disabled', async () => {
    const account = await t.newAccount();
    await record(account.id, 'subscriber.created');
    t.clock.advance(1);
    const late = await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/late' });
    const off = await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/off' });
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: 'test', disabled_at: t.clock.now() })
      .where('id', '=', off.id)
      .execute();
    t.clock.advance(1);
    const after = await record(account.id, 'subscriber.created');
    await drain();
    const messages = await messagesOf(account.id);
    expect(messages.map((message) => [message.endpoint_id, message.event_id])).toEqual([[late.id, after]]);
    expect(await unrelayed(account.id)).toBe(0);
  });

  it('never mixes accounts', async () => {
    const mine = await t.newAccount();
    const theirs = await t.newAccount();
    await createWebhook(t, mine.secretKey, { url: 'http://127.0.0.1:9/mine' });
    t.clock.advance(1);
    await record(theirs.id, 'subscriber.created');
    await drain();
    expect(await messagesOf(mine.id)).toEqual([]);
    expect(await messagesOf(theirs.id)).toEqual([]);
    expect(await unrelayed(theirs.id)).toBe(0);
  });

  it('relays every event exactly once with several relays running at the same time', async () => {
    const account = await t.newAccount();
    const endpoints = [
      await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/a' }),
      await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/b' }),
    ];
    t.clock.advance(1);
    const EVENTS = 300;
    for (let n = 0; n < EVENTS; n += 1) await record(account.id, 'subscriber.created', { n });
    // Six relays at once, 25 events per pass: on PostgreSQL they claim disjoint events (SKIP LOCKED); on SQLite they take turns.
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while ((await relayEvents(deps, 25)) > 0) {
          // keep going until nothing is left
        }
      }),
    );
    const messages = await messagesOf(account.id);
    expect(messages).toHaveLength(EVENTS * endpoints.length);
    expect(new Set(messages.map((message) => `${message.endpoint_id}:${message.event_id}`)).size).toBe(
      EVENTS * endpoints.length,
    );
    expect(await jobsFor(messages.map((message) => message.id))).toHaveLength(EVENTS * endpoints.length);
    expect(await unrelayed(account.id)).toBe(0);
  });

  it('a relay that dies mid-way leaves its events for the next pass: nothing lost, nothing doubled', async () => {
    const account = await t.newAccount();
    await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/crash' });
    t.clock.advance(1);
    for (let n = 0; n < 5; n += 1) await record(account.id, 'subscriber.created', { n });

    class CrashingQueue extends JobQueue {
      enqueued = 0;
      override async enqueue(db: Kysely<Database>, input: EnqueueInput): Promise<string> {
        this.enqueued += 1;
        if (this.enqueued === 3) throw new Error('simulated crash after two jobs');
        return super.enqueue(db, input);
      }
    }
    const crashing = new CrashingQueue(t.store, t.queue.driver, t.clock);
    await expect(relayEvents({ ...deps, queue: crashing })).rejects.toThrow('simulated crash');
    expect(await messagesOf(account.id)).toEqual([]);
    expect(await unrelayed(account.id)).toBe(5);

    await drain();
    const messages = await messagesOf(account.id);
    expect(messages).toHaveLength(5);
    expect(await jobsFor(messages.map((message) => message.id))).toHaveLength(5);
    expect(await unrelayed(account.id)).toBe(0);
  });

  it('events from the API (register, unsubscribe) reach the relay with their data', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/api' });
    t.clock.advance(1);
    const registered = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'android',
      token: 'fcm-token-relay-test-0000000000',
    });
    await post(t.app, `/api/v1/subscribers/${registered.body.data.id}/unsubscribe`, account.secretKey);
    await drain();
    const payloads = (await messagesOf(account.id)).map((message) => JSON.parse(message.payload));
    expect(payloads.map((payload) => [payload.type, payload.data.subscriberId])).toEqual([
      ['subscriber.created', registered.body.data.id],
      ['subscriber.unsubscribed', registered.body.data.id],
    ]);
    expect(payloads[1].data.reason).toBe('requested');
  });
});
