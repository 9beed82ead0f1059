import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  APNS_TOPIC,
  androidToken,
  iosToken,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** POST /widgets/reload end to end: the queue, the channel's app's APNs client, the fake APNs and its devices. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

async function reload(key: string, channelCode: string): Promise<string> {
  return expectSuccess(await post(h.app, '/api/v1/widgets/reload', key, { channelCode }), 202).id as string;
}

/** Waits until every send batch of the reload has settled, then until the worker has nothing left to do. */
async function settled(reloadId: string, batches = 1): Promise<void> {
  const sent = () =>
    h.logs.filter((line) => line.msg === 'widget reload batch sent' && line.reloadId === reloadId).length;
  await waitFor(() => sent() >= batches, 10_000, `widget reload ${reloadId} settled`);
  await h.worker.pool.whenIdle();
}

async function widgetTokenOf(id: string): Promise<string | undefined> {
  const row = await h.store.db
    .selectFrom('widget_push_tokens')
    .select('token')
    .where('subscriber_id', '=', id)
    .executeTakeFirst();
  return row?.token;
}

describe('a widget reload', () => {
  it('sends exactly one widgets push to a device with a widget push token, and none to the others', async () => {
    const account = await h.newAccount({ channels: ['scores'] });
    const withWidget = { device: iosToken(7101), widget: iosToken(7102) };
    await registerSubscriber(h, account.publishableKey, 'scores', 'ios', withWidget.device, {
      widgetPushToken: withWidget.widget,
    });
    const withoutWidget = iosToken(7103);
    await registerSubscriber(h, account.publishableKey, 'scores', 'ios', withoutWidget);
    await registerSubscriber(h, account.publishableKey, 'scores', 'android', androidToken(7104));

    const id = await reload(account.secretKey, 'scores');
    await settled(id);

    const pushes = h.apns.requests.filter((request) =>
      [withWidget.device, withWidget.widget, withoutWidget].includes(request.token ?? ''),
    );
    expect(pushes).toHaveLength(1);
    const [push] = pushes;
    expect(push).toMatchObject({ token: withWidget.widget, status: 200 });
    expect(push!.headers).toMatchObject({
      'apns-push-type': 'widgets',
      'apns-topic': `${APNS_TOPIC}.push-type.widgets`,
      'apns-priority': '5',
      'apns-expiration': '0',
    });
    expect(push!.payload).toEqual({ aps: { 'content-changed': true } });
    expect(h.apns.widgetReloads.forToken(withWidget.widget)).toHaveLength(1);
    expect(h.apns.widgetReloads.forToken(withoutWidget)).toEqual([]);
    expect(h.fcm.requests.filter((request) => request.target?.value === androidToken(7104))).toEqual([]);
  });

  it('forgets a widget token APNs answers Unregistered, and keeps the subscriber and its device token', async () => {
    const account = await h.newAccount({ channels: ['scores'] });
    const device = iosToken(7201);
    const widget = iosToken(7202);
    const id = await registerSubscriber(h, account.publishableKey, 'scores', 'ios', device, {
      widgetPushToken: widget,
    });
    h.clock.advance(1_000);
    h.apns.unregisterToken(widget);

    const reloadId = await reload(account.secretKey, 'scores');
    await settled(reloadId);

    expect(h.apns.requests.filter((request) => request.token === widget).map((r) => r.reason)).toEqual([
      'Unregistered',
    ]);
    expect(await widgetTokenOf(id)).toBeUndefined();
    const subscriber = expectSuccess(await get(h.app, `/api/v1/subscribers/${id}`, account.secretKey), 200);
    expect(subscriber).toMatchObject({
      status: 'active',
      widgetPushEnabled: false,
      tokenPrefix: `${device.slice(0, 8)}…`,
    });

    // The next reload has nobody to reach on the channel.
    const next = expectSuccess(
      await post(h.app, '/api/v1/widgets/reload', account.secretKey, { channelCode: 'scores' }),
      202,
    );
    expect(next.recipientCount).toBe(0);
  });

  it('sends again after APNs answers 429 TooManyRequests, once the backoff has passed', async () => {
    const account = await h.newAccount({ channels: ['scores'] });
    const widget = iosToken(7302);
    await registerSubscriber(h, account.publishableKey, 'scores', 'ios', iosToken(7301), { widgetPushToken: widget });
    h.apns.failNext(1, { reason: 'TooManyRequests' });

    const reloadId = await reload(account.secretKey, 'scores');
    await settled(reloadId);
    expect(h.apns.requests.filter((request) => request.token === widget).map((r) => r.status)).toEqual([429]);

    // The retry round waits for the queue's backoff on the injected clock.
    h.clock.advance(2 * 60 * 60 * 1000);
    h.worker.pool.wake();
    await settled(reloadId, 2);
    expect(h.apns.requests.filter((request) => request.token === widget).map((r) => r.status)).toEqual([429, 200]);
    expect(h.apns.widgetReloads.forToken(widget)).toHaveLength(1);
  });
});
