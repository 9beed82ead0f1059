import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { createApnsSigningKey } from '../../../tools/fakes/index.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification,
  iosToken,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * Each account's channel is delivered with its own app's credentials, against the fakes: the
 * JWT iss/kid and apns-topic of its key and bundle, the OAuth token of its own service account. A key revoked at Apple
 * marks the app failing and sends `app.credentials_failed`; no credential reaches a response or a log line.
 */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

async function accountWithApp(n: number) {
  const account = await h.newAccount();
  const key = createApnsSigningKey();
  const bundleId = `com.tenant${n}.app`;
  for (const fake of [h.apns, h.apnsSandbox]) fake.addKey({ ...key, topics: [bundleId] });
  const serviceAccount = h.fcm.createServiceAccount(`tenant-${n}`);
  const created = await post(h.app, '/api/v1/apps', account.secretKey, {
    name: `Tenant ${n}`,
    ios: { key: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, bundleId },
    android: { serviceAccount: serviceAccount.json },
  });
  expect(created.statusCode).toBe(201);
  const channel = await post(h.app, '/api/v1/channels', account.secretKey, { code: 'news' });
  expect(channel.body.data.appId).toBe(created.body.data.id);
  const ios = iosToken(9000 + n);
  const android = androidToken(9000 + n);
  await registerSubscriber(h, account.publishableKey, 'news', 'ios', ios);
  await registerSubscriber(h, account.publishableKey, 'news', 'android', android);
  return {
    account,
    key,
    bundleId,
    serviceAccount,
    appId: created.body.data.id as string,
    ios,
    android,
    responses: [created.payload, channel.payload],
  };
}

describe('delivery per app', () => {
  it("sends each account's fan-out with its own app's key, topic and service account", async () => {
    const a = await accountWithApp(1);
    const b = await accountWithApp(2);
    for (const tenant of [a, b]) {
      const sent = await post(h.app, '/api/v1/notifications', tenant.account.secretKey, {
        channelCode: 'news',
        title: 'Hello',
      });
      expect(sent.statusCode).toBe(201);
      expect(await finalNotification(h, tenant.account.secretKey, sent.body.data.id)).toMatchObject({
        status: 'sent',
        stats: { delivered: 2, failed: 0 },
      });
    }
    for (const tenant of [a, b]) {
      const apns = h.apns.requests.filter((request) => request.token === tenant.ios);
      expect(apns.map((request) => [request.status, request.jwt?.iss, request.jwt?.kid, request.topic])).toEqual([
        [200, tenant.key.teamId, tenant.key.keyId, tenant.bundleId],
      ]);
      const fcm = h.fcm.requests.filter((request) => request.target?.value === tenant.android);
      expect(fcm.map((request) => [request.status, request.projectId, request.clientEmail])).toEqual([
        [200, `tenant-${tenant.appId === a.appId ? 1 : 2}`, tenant.serviceAccount.json.client_email],
      ]);
    }
    // Nothing went out with the instance's own credentials.
    expect(
      h.apns.requests
        .filter((request) => request.token === a.ios || request.token === b.ios)
        .every((request) => request.topic !== h.providerEnv.CLARION_APNS_TOPIC),
    ).toBe(true);
  });

  it("starts a Live Activity on an app's channel with that app's key and bundle id", async () => {
    const a = await accountWithApp(5);
    const pushToStartToken = 'ab'.repeat(40);
    await post(h.app, '/api/v1/subscribers', a.account.publishableKey, {
      channelCode: 'news',
      platform: 'ios',
      token: iosToken(9105),
      pushToStartToken,
    });
    const started = await post(h.app, '/api/v1/live-activities', a.account.secretKey, {
      channelCode: 'news',
      template: 'progress',
      fields: { title: 'Order #5', progress: 0.2 },
    });
    expect(started.statusCode).toBe(201);
    const start = await h.apns.waitForRequest((request) => request.token === pushToStartToken, 15_000);
    expect([start.status, start.jwt?.iss, start.jwt?.kid, start.topic]).toEqual([
      200,
      a.key.teamId,
      a.key.keyId,
      `${a.bundleId}.push-type.liveactivity`,
    ]);
  });

  it('marks the app failing and sends app.credentials_failed once when Apple refuses its revoked key; another app is untouched', async () => {
    const a = await accountWithApp(3);
    const b = await accountWithApp(4);
    for (const fake of [h.apns, h.apnsSandbox]) fake.removeKey(a.key.keyId);
    for (let round = 0; round < 2; round += 1) {
      const sent = await post(h.app, '/api/v1/notifications', a.account.secretKey, {
        channelCode: 'news',
        title: `Revoked ${round}`,
      });
      expect(await finalNotification(h, a.account.secretKey, sent.body.data.id)).toMatchObject({
        stats: { delivered: 1, failed: 1 },
      });
    }
    const app = await get(h.app, `/api/v1/apps/${a.appId}`, a.account.secretKey);
    expect(app.body.data.credentials).toMatchObject({
      status: 'failing',
      error: 'apns:InvalidProviderToken',
      failedAt: expect.any(String),
    });
    await waitFor(
      async () => (await listEvents(h.store.db, a.account.id)).some((event) => event.type === 'app.credentials_failed'),
      5_000,
      'app.credentials_failed',
    );
    const failed = (await listEvents(h.store.db, a.account.id)).filter(
      (event) => event.type === 'app.credentials_failed',
    );
    expect(failed.map((event) => event.data)).toEqual([
      { appId: a.appId, platform: 'ios', reason: 'apns:InvalidProviderToken', fix: expect.any(String) },
    ]);
    // The subscriber was not unsubscribed for our credentials' fault.
    const channel = await get(h.app, '/api/v1/channels/news', a.account.secretKey);
    expect(channel.body.data.subscriberCount).toMatchObject({ ios: 1, android: 1 });
    expect((await get(h.app, `/api/v1/apps/${b.appId}`, b.account.secretKey)).body.data.credentials.status).toBe('ok');
    expect((await listEvents(h.store.db, b.account.id)).some((event) => event.type === 'app.credentials_failed')).toBe(
      false,
    );

    // No private key in any response or log line.
    for (const text of [...a.responses, ...b.responses, app.payload, JSON.stringify(h.logs)]) {
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain(a.serviceAccount.json.private_key_id);
    }
  });
});
