import type { ClarionMetrics } from '../../../src/metrics/clarion-metrics.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../../src/config/load-config.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../../src/worker.ts';
import { createPushProviders } from '../../../src/delivery/built-in-app.ts';
import type { PushProviders } from '../../../src/delivery/push-sender.ts';
import {
  createApnsSigningKey,
  startFakeApns,
  startFakeFcm,
  startFakeWebPush,
  writeCredentialFile,
  type FakeApns,
  type FakeApnsOptions,
  type FakeFcm,
  type FakeWebPush,
} from '../../../tools/fakes/index.ts';
import { resolveVapidKeys, type VapidKeys } from '../../../src/delivery/web-push/vapid-keys.ts';
import { deviceTokenHash } from '../../../src/domain/device-token.ts';
import { newId } from '../../../src/domain/ids.ts';
import { findChannelByCode } from '../../../src/store/channels-queries.ts';
import type { Subscriber } from '../../../src/store/subscribers-queries.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';
import { capturingLogger } from '../../harness/captured-logs.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';

export const APNS_TOPIC = 'com.example.clarion';
export const FCM_PROJECT = 'clarion-test';

export interface DeliveryHarness extends TestApp {
  apns: FakeApns;
  apnsSandbox: FakeApns;
  fcm: FakeFcm;
  /** The fake Web Push service (on loopback: the harness allows private addresses unless `configure` says otherwise). */
  webPush: FakeWebPush;
  /** The instance's VAPID keys the worker signs with: subscribe fake browsers with `webPush.subscribe({ applicationServerKey: vapidKeys.publicKey })`. */
  vapidKeys: VapidKeys;
  providers: PushProviders;
  worker: DeliveryWorker;
  /** Everything the worker logged, as parsed pino lines. */
  logs: Array<Record<string, unknown>>;
  /** Environment that points a `clarion serve` process at the same fakes and credentials. */
  providerEnv: Record<string, string>;
}

/**
 * For fakes serving several Clarion processes: each holds its own provider token of the key (docs/delivery.md), which
 * is not what such a test is about, so the fake takes every process's token.
 */
export const SEVERAL_PROCESSES: FakeApnsOptions = { providerTokenMinRefreshSeconds: 0 };

export interface FakeProviders {
  /** The production host (CLARION_APNS_URL); `apns.devices` says which tokens each host knows. */
  apns: FakeApns;
  /** The sandbox host (CLARION_APNS_SANDBOX_URL): same keys, same device registry as `apns`. */
  apnsSandbox: FakeApns;
  fcm: FakeFcm;
  /** The CLARION_APNS_* and CLARION_FCM_* variables that point Clarion at these fakes. */
  providerEnv: Record<string, string>;
  /** Closes the three fakes. */
  close(): Promise<void>;
}

/**
 * Fake APNs (knowing one generated key, for APNS_TOPIC) and fake FCM (knowing one service account), with credential
 * files. Tests that run several Clarion processes on the key pass `SEVERAL_PROCESSES`: each process signs its own
 * provider token (one per key and process), which the fake otherwise holds to one new token per 20 minutes.
 */
export async function startFakeProviders(apnsOptions: FakeApnsOptions = {}): Promise<FakeProviders> {
  const key = createApnsSigningKey();
  const credentials = mkdtempSync(join(tmpdir(), 'clarion-credentials-'));
  const apns = await startFakeApns({ keys: [key], topics: [APNS_TOPIC], ...apnsOptions });
  // Tokens the production host refuses are tried here once (src/delivery/apns/apns-environment-sender.ts).
  const shared = {
    ...(apnsOptions.clock ? { clock: apnsOptions.clock } : {}),
    ...(apnsOptions.providerTokenMinRefreshSeconds !== undefined
      ? { providerTokenMinRefreshSeconds: apnsOptions.providerTokenMinRefreshSeconds }
      : {}),
  };
  const apnsSandbox = await startFakeApns({
    keys: [key],
    topics: [APNS_TOPIC],
    ...shared,
    environment: 'sandbox',
    devices: apns.devices,
    keyTokens: apns.keyTokens,
  });
  const fcm = await startFakeFcm(apnsOptions.clock ? { clock: apnsOptions.clock } : {});
  const account = fcm.createServiceAccount(FCM_PROJECT);
  const providerEnv = {
    CLARION_APNS_URL: apns.url,
    CLARION_APNS_SANDBOX_URL: apnsSandbox.url,
    CLARION_APNS_MANAGEMENT_URL: apns.managementUrl,
    CLARION_APNS_KEY_FILE: writeCredentialFile(join(credentials, 'apns.p8'), key),
    CLARION_APNS_KEY_ID: key.keyId,
    CLARION_APNS_TEAM_ID: key.teamId,
    CLARION_APNS_TOPIC: APNS_TOPIC,
    CLARION_FCM_URL: fcm.url,
    CLARION_FCM_SERVICE_ACCOUNT_FILE: writeCredentialFile(join(credentials, 'fcm.json'), account),
  };
  return {
    apns,
    apnsSandbox,
    fcm,
    providerEnv,
    close: async () => void (await Promise.all([apns.close(), apnsSandbox.close(), fcm.close()])),
  };
}

/** The options that point Clarion's provider clients at the fakes of `startFakeProviders`. */
export function fakeProviderConfig(providerEnv: Record<string, string>): Partial<Config> {
  return {
    apnsUrl: providerEnv.CLARION_APNS_URL!,
    apnsSandboxUrl: providerEnv.CLARION_APNS_SANDBOX_URL!,
    apnsManagementUrl: providerEnv.CLARION_APNS_MANAGEMENT_URL!,
    apnsKeyFile: providerEnv.CLARION_APNS_KEY_FILE,
    apnsKeyId: providerEnv.CLARION_APNS_KEY_ID,
    apnsTeamId: providerEnv.CLARION_APNS_TEAM_ID,
    apnsTopic: providerEnv.CLARION_APNS_TOPIC,
    fcmUrl: providerEnv.CLARION_FCM_URL!,
    fcmServiceAccountFile: providerEnv.CLARION_FCM_SERVICE_ACCOUNT_FILE,
  };
}

/**
 * The API and a delivery worker on one database, with fake APNs, FCM and Web Push at the network edge. Clarion reaches the
 * fakes only through its configuration (URLs, key files) and NODE_EXTRA_CA_CERTS (set in vitest.config.ts). One
 * ManualClock drives the API, the queue, the clients and the fakes' JWT checks.
 */
export async function startDeliveryHarness(
  options: {
    apns?: FakeApnsOptions;
    configure?: Partial<Config>;
    /** A PostgreSQL database of its own (isolated-database.ts); the default. */
    isolatedDatabase?: boolean;
    /** Metrics for the worker to count into (src/metrics/); none by default. */
    metrics?: ClarionMetrics;
  } = {},
): Promise<DeliveryHarness> {
  // Its own PostgreSQL database unless told otherwise: test files run two at a time (vitest.config.ts), and on the
  // shared one another file's worker, configured for other fakes and another clock, would claim this file's jobs.
  // The fake Web Push service listens on loopback: the API must accept its endpoints as the worker must reach them.
  const allowPrivateAddresses = options.configure?.allowPrivateAddresses ?? true;
  // The API takes the same configuration as the worker (its base URL, e.g., is what the service worker it serves reports to).
  const base = await startTestApp(
    { ...options.configure, allowPrivateAddresses },
    { isolatedDatabase: options.isolatedDatabase ?? true },
  );
  // The API's APNs provider tokens (Test credentials) for the worker too, as src/server.ts shares them.
  const { providerTokens } = base;
  const { apns, apnsSandbox, fcm, providerEnv } = await startFakeProviders({ ...options.apns, clock: base.clock });
  // The API was built before the fakes existed (they run on its clock): its Test credentials reach them too.
  Object.assign(base.config, fakeProviderConfig(providerEnv));
  const config: Config = {
    ...base.config,
    queuePollInterval: 50,
    allowPrivateAddresses,
    ...options.configure,
  };
  const webPush = await startFakeWebPush({ clock: base.clock });
  const vapidKeys = await resolveVapidKeys(base.store.db, base.secretKey, config, base.clock.now());
  const { logger, logs } = capturingLogger();
  const providers = createPushProviders(config, base.clock, logger, vapidKeys, providerTokens);
  const worker = await startDeliveryWorker({
    store: base.store,
    queue: base.queue,
    clock: base.clock,
    config,
    logger,
    providers,
    secretKey: base.secretKey,
    metrics: options.metrics,
    providerTokens,
  });
  return {
    ...base,
    config,
    apns,
    apnsSandbox,
    fcm,
    webPush,
    vapidKeys,
    providers,
    worker,
    logs,
    providerEnv,
    async close() {
      await worker.stop(1_000);
      await Promise.all(Object.values(providers).map((provider) => provider.close()));
      await Promise.all([apns.close(), apnsSandbox.close(), fcm.close(), webPush.close()]);
      await base.close();
    },
  };
}

/** A valid-looking APNs device token (64 hex digits) derived from a number. */
export function iosToken(n: number): string {
  return n.toString(16).padStart(64, '0');
}

export function androidToken(n: number): string {
  return `fcm-token-${n}-${'x'.repeat(20)}`;
}

/** Inserts `count` active subscribers (even n iOS, odd n Android) straight into the database, 500 rows a statement. */
export async function seedSubscribers(
  t: TestApp,
  account: TestAccount,
  channelCode: string,
  count: number,
  firstN = 0,
): Promise<Map<string, string>> {
  const channel = (await findChannelByCode(t.store.db, account.id, channelCode))!;
  const tokens = new Map<string, string>();
  const now = t.clock.now() - 1_000;
  for (let start = firstN; start < firstN + count; start += 500) {
    const rows: Subscriber[] = [];
    for (let n = start; n < Math.min(firstN + count, start + 500); n += 1) {
      const platform = n % 2 === 0 ? 'ios' : 'android';
      const token = platform === 'ios' ? iosToken(n) : androidToken(n);
      const id = newId('subscriber', now);
      tokens.set(token, id);
      rows.push({
        id,
        account_id: account.id,
        channel_id: channel.id,
        platform,
        token,
        token_hash: deviceTokenHash(`${platform}:${token}`),
        push_to_start_token: null,
        os_version: null,
        timezone: null,
        locale: null,
        external_id: null,
        status: 'active',
        unsubscribe_reason: null,
        created_at: now,
        updated_at: now,
        unsubscribed_at: null,
        apns_environment: null,
        last_delivered_at: null,
      });
    }
    await t.store.db.insertInto('subscribers').values(rows).execute();
  }
  return tokens;
}

/** Registers a subscriber through the API, as an app would (201 expected), and returns its id. */
export async function registerSubscriber(
  t: TestApp,
  key: string,
  channelCode: string,
  platform: string,
  token: unknown,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await post(t.app, '/api/v1/subscribers', key, { channelCode, platform, token, ...extra });
  if (response.statusCode !== 201)
    throw new Error(
      `registering a ${platform} subscriber answered ${response.statusCode}: ${JSON.stringify(response.body)}`,
    );
  return response.body.data.id as string;
}

/** Waits until the notification is `sent` or `failed`, and returns it as the API shows it. */
export async function finalNotification(t: TestApp, key: string, id: string): Promise<any> {
  let body: any;
  await waitFor(
    async () => {
      body = (await get(t.app, `/api/v1/notifications/${id}`, key)).body;
      return body.data.status === 'sent' || body.data.status === 'failed';
    },
    15_000,
    `notification ${id} to finish`,
  );
  return body.data;
}
