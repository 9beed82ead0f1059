import { receiptKey } from '../../../src/domain/receipt.ts';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { TableNode } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchNotificationHandler } from '../../../src/delivery/dispatch-job.ts';
import { DISPATCH_NOTIFICATION, SEND_BATCH } from '../../../src/delivery/job-kinds.ts';
import {
  createProviderClientRegistry,
  type ProviderClientRegistry,
} from '../../../src/delivery/provider-client-registry.ts';
import { createPushProviders } from '../../../src/delivery/built-in-app.ts';
import type { PushProviders } from '../../../src/delivery/push-sender.ts';
import { sendBatchHandler } from '../../../src/delivery/send-batch-job.ts';
import { resolveSecretKey } from '../../../src/config/secret-key.ts';
import type { JobHandler } from '../../../src/queue/worker-pool.ts';
import { createApnsSigningKey } from '../../../tools/fakes/index.ts';
import { del, get, post } from '../../harness/requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';
import { fakeProviderConfig, seedSubscribers, startFakeProviders, type FakeProviders } from './delivery-harness.ts';

/**
 * A send job reads only its subscribers per batch. The notification is read once per
 * worker and kept (its content cannot change after acceptance), and the channel's app comes in the job's payload,
 * fixed by the dispatch. The jobs run one at a time, as the worker pool runs them, so the moment between two batches
 * of one notification is explicit. A database of its own, so no other file's jobs are claimed.
 */
let t: TestApp;
let fakes: FakeProviders;
let providers: PushProviders;
let registry: ProviderClientRegistry;
let handlers: Record<string, JobHandler>;
/** SELECTs from `notifications` made by the send handler (not by the API or the dispatch). */
let sendJobNotificationReads = 0;
const logger = pino({ level: 'silent' });
type FcmMessage = { notification?: unknown; data?: unknown };
const OWNER = 'snapshot-test-worker';

function readsOfNotifications(): KyselyPlugin {
  const isNotificationRead = (node: RootOperationNode) =>
    node.kind === 'SelectQueryNode' &&
    (node.from?.froms ?? []).some((from) => TableNode.is(from) && from.table.identifier.name === 'notifications');
  return {
    transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
      if (isNotificationRead(node)) sendJobNotificationReads += 1;
      return node;
    },
    async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return result;
    },
  };
}

beforeAll(async () => {
  // Private addresses allowed: the apps' service accounts name the fake token endpoint on loopback.
  t = await startTestApp({ allowPrivateAddresses: true }, { isolatedDatabase: true });
  fakes = await startFakeProviders({ clock: t.clock });
  const config = { ...t.config, ...fakeProviderConfig(fakes.providerEnv) };
  providers = createPushProviders(config, t.clock, logger);
  const deps = { store: t.store, queue: t.queue, clock: t.clock, logger };
  registry = createProviderClientRegistry({
    store: t.store,
    config,
    clock: t.clock,
    logger,
    secretKey: resolveSecretKey(config.secretKey, config.dataDir),
    builtIn: providers,
  });
  const counted = { ...t.store, db: t.store.db.withPlugin(readsOfNotifications()) };
  handlers = {
    [DISPATCH_NOTIFICATION]: dispatchNotificationHandler(deps),
    [SEND_BATCH]: sendBatchHandler({
      ...deps,
      store: counted,
      providers,
      providersFor: registry.providersFor,
      receiptKey: receiptKey(resolveSecretKey(config.secretKey, config.dataDir)),
    }),
  };
});
afterAll(async () => {
  await registry?.close();
  await Promise.all(Object.values(providers ?? {}).map((provider) => provider.close()));
  await fakes?.close();
  await t?.close();
});

/** Runs one due job of `kind` to completion, as WorkerPool.execute does; false when none is due. */
async function runOne(kind: string): Promise<boolean> {
  const [job] = await t.queue.claim({ owner: OWNER, kinds: [kind], limit: 1, leaseMs: 60_000 });
  if (!job) return false;
  await handlers[kind]!(job, { owner: OWNER, signal: new AbortController().signal });
  await t.queue.complete(t.store.db, job, OWNER);
  return true;
}

/** An app of `account` with its own APNs key and FCM service account, known to the fakes. */
async function createApp(account: TestAccount, n: number): Promise<{ id: string; clientEmail: string }> {
  const key = createApnsSigningKey();
  const bundleId = `com.snapshot${n}.app`;
  for (const fake of [fakes.apns, fakes.apnsSandbox]) fake.addKey({ ...key, topics: [bundleId] });
  const serviceAccount = fakes.fcm.createServiceAccount(`snapshot-${n}`);
  const created = await post(t.app, '/api/v1/apps', account.secretKey, {
    name: `Snapshot ${n}`,
    ios: { key: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, bundleId },
    android: { serviceAccount: serviceAccount.json },
  });
  expect(created.statusCode).toBe(201);
  return { id: created.body.data.id as string, clientEmail: serviceAccount.json.client_email };
}

describe('a send job', () => {
  it('reads its notification once per worker, not once per batch, and sends its content in every batch', async () => {
    const account = await t.newAccount({ channels: ['snapshot-content'] });
    // 1,001 subscribers: a page of 1,000 (500 iOS, 500 Android) and a last page of one: three send jobs.
    const tokens = await seedSubscribers(t, account, 'snapshot-content', 1001, 200_000);
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'snapshot-content',
      title: 'Kept',
      body: 'Read once',
      data: { order: '42' },
    });
    expect(sent.statusCode).toBe(201);
    expect(await runOne(DISPATCH_NOTIFICATION)).toBe(true);
    const readsBefore = sendJobNotificationReads;
    let batches = 0;
    while (await runOne(SEND_BATCH)) batches += 1;

    expect(batches).toBe(3);
    expect(sendJobNotificationReads - readsBefore).toBe(1);
    const notification = (await get(t.app, `/api/v1/notifications/${sent.body.data.id}`, account.secretKey)).body.data;
    expect(notification).toMatchObject({ status: 'sent', stats: { delivered: 1001, failed: 0 } });
    const apns = fakes.apns.requests.filter((request) => tokens.has(request.token ?? ''));
    const fcm = fakes.fcm.requests.filter((request) => tokens.has(request.target?.value ?? ''));
    expect([apns.length, fcm.length]).toEqual([501, 500]);
    expect(new Set(apns.map((request) => JSON.stringify((request.payload as { aps: unknown }).aps)))).toEqual(
      new Set([
        JSON.stringify({
          alert: { title: 'Kept', body: 'Read once' },
          'thread-id': 'snapshot-content',
          'mutable-content': 1,
        }),
      ]),
    );
    const fcmContent = new Set(
      fcm.map((request) =>
        // Each push's own receipt aside (docs/engagement.md), every batch sent the same content.
        JSON.stringify([
          (request.message as FcmMessage).notification,
          { ...(request.message as FcmMessage).data!, clarionReceipt: undefined },
        ]),
      ),
    );
    expect(fcmContent).toEqual(new Set([JSON.stringify([{ title: 'Kept', body: 'Read once' }, { order: '42' }])]));
  });

  it('sends a notification with the app its channel had at dispatch, even when the channel moves to another app mid-fan-out', async () => {
    const account = await t.newAccount({ channels: ['snapshot-move'] });
    const first = await createApp(account, 1);
    const second = await createApp(account, 2);
    expect(
      (await post(t.app, '/api/v1/channels/snapshot-move/update', account.secretKey, { appId: first.id })).statusCode,
    ).toBe(200);
    // A page of 1,000 (500 iOS, 500 Android) and a last page of 2 (one each): two Android send jobs.
    const tokens = await seedSubscribers(t, account, 'snapshot-move', 1002, 300_000);
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'snapshot-move',
      title: 'Moving',
    });
    expect(sent.statusCode).toBe(201);
    expect(await runOne(DISPATCH_NOTIFICATION)).toBe(true);
    expect(await runOne(DISPATCH_NOTIFICATION)).toBe(false);
    // The first batch (iOS, the first page's first job), then the move, then the rest.
    expect(await runOne(SEND_BATCH)).toBe(true);
    expect(
      (await post(t.app, '/api/v1/channels/snapshot-move/update', account.secretKey, { appId: second.id })).statusCode,
    ).toBe(200);
    while (await runOne(SEND_BATCH)) {
      // until every batch ran
    }

    const notification = (await get(t.app, `/api/v1/notifications/${sent.body.data.id}`, account.secretKey)).body.data;
    expect(notification).toMatchObject({ status: 'sent', stats: { delivered: 1002, failed: 0 } });
    const fcm = fakes.fcm.requests.filter((request) => tokens.has(request.target?.value ?? ''));
    expect(fcm).toHaveLength(501);
    expect(new Set(fcm.map((request) => request.clientEmail))).toEqual(new Set([first.clientEmail]));
    // The channel's next notification goes out with the app it moved to.
    const next = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'snapshot-move',
      title: 'Moved',
    });
    expect(await runOne(DISPATCH_NOTIFICATION)).toBe(true);
    while (await runOne(SEND_BATCH)) {
      // until every batch ran
    }
    expect((await get(t.app, `/api/v1/notifications/${next.body.data.id}`, account.secretKey)).body.data).toMatchObject(
      { status: 'sent' },
    );
    const moved = fakes.fcm.requests.filter((request) => tokens.has(request.target?.value ?? '')).slice(501);
    expect(moved).toHaveLength(501);
    expect(new Set(moved.map((request) => request.clientEmail))).toEqual(new Set([second.clientEmail]));
  });

  it("finishes with the channel's new app when the app it was dispatched with is deleted mid-fan-out", async () => {
    const account = await t.newAccount({ channels: ['snapshot-delete'] });
    const first = await createApp(account, 3);
    const second = await createApp(account, 4);
    expect(
      (await post(t.app, '/api/v1/channels/snapshot-delete/update', account.secretKey, { appId: first.id })).statusCode,
    ).toBe(200);
    const tokens = await seedSubscribers(t, account, 'snapshot-delete', 1002, 400_000);
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'snapshot-delete',
      title: 'Deleted',
    });
    expect(await runOne(DISPATCH_NOTIFICATION)).toBe(true);
    expect(await runOne(SEND_BATCH)).toBe(true);
    // Moved away, the first app is no longer in use and can be deleted while its notification is still being sent.
    expect(
      (await post(t.app, '/api/v1/channels/snapshot-delete/update', account.secretKey, { appId: second.id }))
        .statusCode,
    ).toBe(200);
    expect((await del(t.app, `/api/v1/apps/${first.id}`, account.secretKey)).statusCode).toBe(200);
    while (await runOne(SEND_BATCH)) {
      // until every batch ran
    }

    expect((await get(t.app, `/api/v1/notifications/${sent.body.data.id}`, account.secretKey)).body.data).toMatchObject(
      { status: 'sent', stats: { delivered: 1002, failed: 0 } },
    );
    const fcm = fakes.fcm.requests.filter((request) => tokens.has(request.target?.value ?? ''));
    expect(new Set(fcm.map((request) => request.clientEmail))).toEqual(new Set([second.clientEmail]));
  });
});
