import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSubscriber } from '../../../src/store/subscribers-queries.ts';
import { createApnsSigningKey } from '../../../tools/fakes/index.ts';
import { post } from '../../harness/requests.ts';
import {
  finalNotification,
  iosToken,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * iOS tokens keep their APNs environment. The fake production host (CLARION_APNS_URL) and sandbox host
 * (CLARION_APNS_SANDBOX_URL) share one registry of issued tokens and refuse the other's with 400 BadDeviceToken, as
 * Apple's do; a made-up token is refused by both.
 */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness({ apns: { environment: 'production' } });
  // Real APNs refuses a token it never issued: so does this pair.
  h.apns.devices.issuedOnly = true;
});
afterAll(async () => h?.close());

describe('APNs environment per token', () => {
  it('delivers sandbox and production tokens, learns each environment, and unsubscribes only a token both hosts refuse', async () => {
    const account = await h.newAccount({ channels: ['debug'] });
    const sandbox = iosToken(7001);
    const production = iosToken(7002);
    const neither = iosToken(7003);
    h.apns.devices.issue(sandbox, 'sandbox');
    h.apns.devices.issue(production, 'production');
    const sandboxId = await registerSubscriber(h, account.publishableKey, 'debug', 'ios', sandbox);
    const productionId = await registerSubscriber(h, account.publishableKey, 'debug', 'ios', production);
    const neitherId = await registerSubscriber(h, account.publishableKey, 'debug', 'ios', neither);

    const first = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'debug',
      title: 'Build 12',
    });
    expect(first.statusCode).toBe(201);
    const final = await finalNotification(h, account.secretKey, first.body.data.id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 2, failed: 1 } });

    // Production first; the sandbox only for what production called BadDeviceToken.
    expect(h.apns.requests.filter((r) => r.token === sandbox).map((r) => r.reason)).toEqual(['BadDeviceToken']);
    expect(h.apnsSandbox.requests.filter((r) => r.token === sandbox).map((r) => r.status)).toEqual([200]);
    expect(h.apnsSandbox.requests.filter((r) => r.token === production)).toHaveLength(0);
    expect(h.apnsSandbox.requests.filter((r) => r.token === neither).map((r) => r.reason)).toEqual(['BadDeviceToken']);

    const stored = async (id: string) => (await findSubscriber(h.store.db, account.id, id))!;
    expect(await stored(sandboxId)).toMatchObject({ status: 'active', apns_environment: 'sandbox' });
    expect(await stored(productionId)).toMatchObject({ status: 'active', apns_environment: 'production' });
    expect(await stored(neitherId)).toMatchObject({
      status: 'unsubscribed',
      unsubscribe_reason: 'token_invalid',
      apns_environment: null,
    });

    // The second push goes straight to the host each token belongs to.
    const before = { production: h.apns.requests.length, sandbox: h.apnsSandbox.requests.length };
    const second = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'debug',
      title: 'Build 13',
    });
    expect(await finalNotification(h, account.secretKey, second.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 2, failed: 0 },
    });
    expect(h.apns.requests.slice(before.production).map((r) => r.token)).toEqual([production]);
    expect(h.apnsSandbox.requests.slice(before.sandbox).map((r) => r.token)).toEqual([sandbox]);
  });

  it('sends a token registered with its environment straight to that host', async () => {
    const account = await h.newAccount({ channels: ['said'] });
    const token = iosToken(7101);
    h.apns.devices.issue(token, 'sandbox');
    const registered = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'said',
      platform: 'ios',
      token,
      environment: 'sandbox',
    });
    expect(registered.statusCode).toBe(201);
    expect(registered.body.data.environment).toBe('sandbox');
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'said', title: 'Hi' });
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 1 },
    });
    expect(h.apns.requests.filter((r) => r.token === token)).toHaveLength(0);
    expect(h.apnsSandbox.requests.filter((r) => r.token === token).map((r) => r.status)).toEqual([200]);
  });

  it('keeps every debug-build subscriber of a batch of ten or more: the misconfiguration guard sees only tokens both hosts refuse', async () => {
    const account = await h.newAccount({ channels: ['many'] });
    const ids: string[] = [];
    for (let n = 0; n < 12; n += 1) {
      const token = iosToken(7200 + n);
      h.apns.devices.issue(token, 'sandbox');
      ids.push(await registerSubscriber(h, account.publishableKey, 'many', 'ios', token));
    }
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'many',
      title: 'All debug',
    });
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 12, failed: 0 },
    });
    for (const id of ids)
      expect(await findSubscriber(h.store.db, account.id, id)).toMatchObject({
        status: 'active',
        apns_environment: 'sandbox',
      });
  });

  it('tries the sandbox when production refuses a key limited to the sandbox (BadEnvironmentKeyIdInToken), and learns it', async () => {
    const account = await h.newAccount();
    // Keys created since February 2025 work in one environment only: this one in the sandbox.
    const key = createApnsSigningKey();
    for (const fake of [h.apns, h.apnsSandbox])
      fake.addKey({ ...key, environment: 'sandbox', topics: ['com.debug.only'] });
    const app = await post(h.app, '/api/v1/apps', account.secretKey, {
      name: 'Debug',
      ios: { key: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, bundleId: 'com.debug.only' },
    });
    expect(app.statusCode).toBe(201);
    expect((await post(h.app, '/api/v1/channels', account.secretKey, { code: 'debug-key' })).statusCode).toBe(201);
    const token = iosToken(7301);
    h.apns.devices.issue(token, 'sandbox');
    const id = await registerSubscriber(h, account.publishableKey, 'debug-key', 'ios', token);

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'debug-key',
      title: 'Sandbox key',
    });
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 1, failed: 0 },
    });
    expect(h.apns.requests.filter((r) => r.token === token).map((r) => r.reason)).toEqual([
      'BadEnvironmentKeyIdInToken',
    ]);
    expect(h.apnsSandbox.requests.filter((r) => r.token === token).map((r) => r.status)).toEqual([200]);
    expect(await findSubscriber(h.store.db, account.id, id)).toMatchObject({
      status: 'active',
      apns_environment: 'sandbox',
    });
  });
});
