import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApnsSigningKey } from '../../../tools/fakes/index.ts';
import { post } from '../../harness/requests.ts';
import { finalNotification } from '../engine/delivery-harness.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Live Activity pushes go to the subscriber's APNs environment (docs/live-activities.md): a development build's
 * push-to-start and activity tokens are sandbox tokens, which the production host refuses with BadDeviceToken. The
 * environment is the one given at registration or learned by a notification.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  // The production fake refuses sandbox tokens (BadDeviceToken), as Apple's host does.
  h = await startLiveActivityHarness({ apns: { environment: 'production' } });
});
afterAll(async () => h?.close());

const fields = { title: 'Order #7', progress: 0.1 };
const events = (requests: typeof h.apns.requests, token: string) =>
  requests
    .filter((request) => request.token === token)
    .map((request) => [request.status, (request.payload as { aps: { event: string } }).aps.event]);

async function sandboxSubscriber(
  account: Awaited<ReturnType<typeof h.newAccount>>,
  environment: 'sandbox' | undefined,
) {
  const token = randomBytes(32).toString('hex');
  const pushToStartToken = randomBytes(40).toString('hex');
  for (const issued of [token, pushToStartToken]) h.apns.devices.issue(issued, 'sandbox');
  const registered = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
    channelCode: 'orders',
    platform: 'ios',
    token,
    pushToStartToken,
    ...(environment ? { environment } : {}),
  });
  expect(registered.statusCode).toBe(201);
  return { subscriberId: registered.body.data.id as string, token, pushToStartToken };
}

async function startUpdateEnd(
  account: Awaited<ReturnType<typeof h.newAccount>>,
  device: { subscriberId: string; token: string },
) {
  const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
    channelCode: 'orders',
    template: 'progress',
    fields,
    delivery: 'tokens',
  });
  expect(started.statusCode).toBe(201);
  const id = started.body.data.id as string;
  await h.settle();
  // The app reports the activity's update token (a sandbox one too).
  const activityToken = randomBytes(40).toString('hex');
  h.apns.devices.issue(activityToken, 'sandbox');
  const reported = await post(h.app, `/api/v1/live-activities/${id}/tokens`, account.publishableKey, {
    subscriberId: device.subscriberId,
    token: activityToken,
    deviceToken: device.token,
  });
  expect(reported.statusCode).toBeLessThan(300);
  await h.settle();
  for (const [path, body] of [
    ['update', { fields: { progress: 0.5 } }],
    ['end', { fields: { progress: 1 } }],
  ] as const) {
    h.clock.advance(1_000);
    expect((await post(h.app, `/api/v1/live-activities/${id}/${path}`, account.secretKey, body)).statusCode).toBe(200);
    await h.settle();
  }
  return activityToken;
}

describe('Live Activity pushes in the subscriber’s APNs environment', () => {
  beforeAll(() => {
    h.apns.devices.issuedOnly = true;
  });
  afterAll(() => {
    h.apns.devices.issuedOnly = false;
  });

  it('sends the start, update and end of a subscriber registered as sandbox to the sandbox host', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const device = await sandboxSubscriber(account, 'sandbox');
    const activityToken = await startUpdateEnd(account, device);
    expect(events(h.apnsSandbox.requests, device.pushToStartToken)).toEqual([[200, 'start']]);
    expect(events(h.apnsSandbox.requests, activityToken)).toEqual([
      [200, 'update'],
      [200, 'end'],
    ]);
    expect(
      h.apns.requests.filter((request) => request.token === device.pushToStartToken || request.token === activityToken),
    ).toEqual([]);
  });

  it('uses the environment a notification learned', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const device = await sandboxSubscriber(account, undefined);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'orders',
      title: 'Hello',
    });
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({ stats: { delivered: 1 } });
    const row = await h.store.db
      .selectFrom('subscribers')
      .select('apns_environment')
      .where('id', '=', device.subscriberId)
      .executeTakeFirstOrThrow();
    expect(row.apns_environment).toBe('sandbox');

    const activityToken = await startUpdateEnd(account, device);
    expect(events(h.apnsSandbox.requests, device.pushToStartToken)).toEqual([[200, 'start']]);
    expect(events(h.apnsSandbox.requests, activityToken).map(([, event]) => event)).toEqual(['update', 'end']);
    expect(
      h.apns.requests.filter((request) => request.token === device.pushToStartToken || request.token === activityToken),
    ).toEqual([]);
  });

  it("sends an app-bound channel's sandbox subscriber its pushes from the sandbox host with the app's key", async () => {
    const account = await h.newAccount();
    const key = createApnsSigningKey();
    const bundleId = 'com.sandboxed.app';
    for (const fake of [h.apns, h.apnsSandbox]) fake.addKey({ ...key, topics: [bundleId] });
    expect(
      (
        await post(h.app, '/api/v1/apps', account.secretKey, {
          name: 'Sandboxed',
          ios: { key: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, bundleId },
        })
      ).statusCode,
    ).toBe(201);
    expect((await post(h.app, '/api/v1/channels', account.secretKey, { code: 'orders' })).statusCode).toBe(201);
    const device = await sandboxSubscriber(account, 'sandbox');
    const activityToken = await startUpdateEnd(account, device);
    const sent = h.apnsSandbox.requests.filter(
      (request) => request.token === device.pushToStartToken || request.token === activityToken,
    );
    expect(
      sent.map((request) => [
        request.status,
        (request.payload as { aps: { event: string } }).aps.event,
        request.jwt?.kid,
        request.topic,
      ]),
    ).toEqual([
      [200, 'start', key.keyId, `${bundleId}.push-type.liveactivity`],
      [200, 'update', key.keyId, `${bundleId}.push-type.liveactivity`],
      [200, 'end', key.keyId, `${bundleId}.push-type.liveactivity`],
    ]);
  });

  it('starts a sandbox device per token from the sandbox host when the broadcast channel is in production', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const sandbox = await sandboxSubscriber(account, 'sandbox');
    const production = await h.iosDevice(account, 'orders', { osVersion: '18.2' });
    h.apns.devices.issue(production.pushToStartToken!, 'production');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields,
      delivery: 'broadcast',
    });
    expect(started.statusCode).toBe(201);
    await h.settle();
    const [sandboxStart] = h.apnsSandbox.requests.filter((request) => request.token === sandbox.pushToStartToken);
    expect(sandboxStart).toMatchObject({ status: 200, payload: { aps: { event: 'start', 'input-push-token': 1 } } });
    expect((sandboxStart!.payload as { aps: Record<string, unknown> }).aps['input-push-channel']).toBeUndefined();
    expect(h.apnsPushes(production.pushToStartToken!)[0]).toMatchObject({
      status: 200,
      payload: { aps: { event: 'start', 'input-push-channel': expect.any(String) } },
    });
  });

  it('tries the sandbox for a subscriber of unknown environment that production refuses, and remembers it', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const device = await sandboxSubscriber(account, undefined);
    const activityToken = await startUpdateEnd(account, device);
    expect(events(h.apns.requests, device.pushToStartToken)).toEqual([[400, 'start']]);
    expect(events(h.apnsSandbox.requests, device.pushToStartToken)).toEqual([[200, 'start']]);
    // Learned with the start: the update and end go straight to the sandbox.
    expect(events(h.apnsSandbox.requests, activityToken)).toEqual([
      [200, 'update'],
      [200, 'end'],
    ]);
    expect(events(h.apns.requests, activityToken)).toEqual([]);
    const row = await h.store.db
      .selectFrom('subscribers')
      .select(['apns_environment', 'status'])
      .where('id', '=', device.subscriberId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ apns_environment: 'sandbox', status: 'active' });
  });
});
