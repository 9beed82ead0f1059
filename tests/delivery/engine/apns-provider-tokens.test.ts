import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from '../live-activities/live-activity-harness.ts';
import { finalNotification, iosToken, registerSubscriber } from './delivery-harness.ts';

/**
 * One APNs provider token per key in a process: Apple refuses a key's new token sooner than 20 minutes after its last
 * (429 TooManyProviderTokenUpdates), and the fake holds the key to it on every connection of both hosts
 * (tools/fakes/apns/apns-provider-token.ts). The production, sandbox and broadcast clients, each app's, and
 * "Test credentials" all sign with the key, at different moments.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  // A production and a sandbox host, each refusing the other's tokens, as Apple's do.
  h = await startLiveActivityHarness({ apns: { environment: 'production' } });
  h.apns.devices.issuedOnly = true;
});
afterAll(async () => h?.close());

const MINUTE = 60_000;
const keyRequests = (keyId: string) =>
  [...h.apns.requests, ...h.apnsSandbox.requests].filter((request) => request.jwt?.kid === keyId);

describe('APNs provider tokens', () => {
  it('signs one token for the built-in key, used by the production, sandbox and broadcast connections alike', async () => {
    const keyId = h.providerEnv.CLARION_APNS_KEY_ID!;
    const account = await h.newAccount({ channels: ['news'] });
    const production = iosToken(8001);
    const sandbox = iosToken(8002);
    h.apns.devices.issue(production, 'production');
    h.apns.devices.issue(sandbox, 'sandbox');
    await registerSubscriber(h, account.publishableKey, 'news', 'ios', production);
    await registerSubscriber(h, account.publishableKey, 'news', 'ios', sandbox);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'First' });
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({ stats: { delivered: 2 } });

    // Ten minutes on, the first broadcast: the channel management and broadcast connections join in.
    h.clock.advance(10 * MINUTE);
    const device = await h.iosDevice(account, 'news', { osVersion: '18.2' });
    h.apns.devices.issue(device.pushToStartToken!, 'production');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'news',
      template: 'progress',
      fields: { title: 'Live', progress: 0 },
      delivery: 'broadcast',
    });
    expect(started.statusCode).toBe(201);
    await h.settle();
    await post(h.app, `/api/v1/live-activities/${started.body.data.id}/update`, account.secretKey, {
      fields: { progress: 0.5 },
    });
    await h.settle();

    const requests = keyRequests(keyId);
    expect(new Set(requests.map((request) => request.kind))).toEqual(new Set(['device', 'channels', 'broadcast']));
    expect(requests.filter((request) => request.reason === 'TooManyProviderTokenUpdates')).toEqual([]);
    expect(new Set(requests.map((request) => request.jwt?.iat)).size).toBe(1);
  });

  it("shares the key's token between an app using it, the built-in app and Test credentials, which reuses its connection", async () => {
    const keyPem = readFileSync(h.providerEnv.CLARION_APNS_KEY_FILE!, 'utf8');
    const { CLARION_APNS_KEY_ID: keyId, CLARION_APNS_TEAM_ID: teamId, CLARION_APNS_TOPIC: bundleId } = h.providerEnv;
    const account = await h.newAccount({ channels: ['built-in'] });
    const token = iosToken(8101);
    h.apns.devices.issue(token, 'production');
    await registerSubscriber(h, account.publishableKey, 'built-in', 'ios', token);
    // The operator's own app, uploaded with the instance's key: the same key, another client.
    const app = await post(h.app, '/api/v1/apps', account.secretKey, {
      name: 'Same key',
      ios: { key: keyPem, keyId, teamId, bundleId },
    });
    expect(app.statusCode).toBe(201);
    await post(h.app, '/api/v1/channels', account.secretKey, { code: 'own-app' });
    await registerSubscriber(h, account.publishableKey, 'own-app', 'ios', token);

    // 30 minutes into the key's token (the first test signed it): old enough for a client of its own to sign a new one.
    h.clock.advance(20 * MINUTE);
    const from = h.clock.now();
    const first = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'built-in',
      title: 'Built-in',
    });
    expect(await finalNotification(h, account.secretKey, first.body.data.id)).toMatchObject({
      stats: { delivered: 1 },
    });
    h.clock.advance(5 * MINUTE);
    const checked = expectSuccess(await post(h.app, `/api/v1/apps/${app.body.data.id}/test`, account.secretKey), 200);
    expect(checked).toMatchObject({ ios: { ok: true } });
    const sessions = h.apns.sessions.length;
    expect(
      expectSuccess(await post(h.app, `/api/v1/apps/${app.body.data.id}/test`, account.secretKey), 200),
    ).toMatchObject({ ios: { ok: true } });
    expect(h.apns.sessions.length).toBe(sessions);
    h.clock.advance(5 * MINUTE);
    const second = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'own-app',
      title: 'Own app',
    });
    expect(await finalNotification(h, account.secretKey, second.body.data.id)).toMatchObject({
      stats: { delivered: 1 },
    });

    const requests = keyRequests(keyId!).filter((request) => request.at >= from);
    expect(requests.filter((request) => request.reason === 'TooManyProviderTokenUpdates')).toEqual([]);
    expect(new Set(requests.map((request) => request.jwt?.iat)).size).toBe(1);
  });
});
