import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVapidKeyPair } from '../../../src/delivery/web-push/vapid-keys.ts';
import { listEvents } from '../../../src/store/events-queries.ts';
import { startFakeWebPush, type FakeSubscription } from '../../../tools/fakes/index.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  iosToken,
  finalNotification as waitForFinal,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** Web Push end to end: the API, the worker and the fake push service, which decrypts what a service worker would see. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

/** A browser subscribed with the instance's VAPID key, as the SDK does, and registered as a web subscriber. */
async function subscribeBrowser(
  key: string,
  channelCode: string,
  applicationServerKey = h.vapidKeys.publicKey,
): Promise<{ id: string; subscription: FakeSubscription }> {
  const subscription = h.webPush.subscribe({ applicationServerKey });
  const response = await post(h.app, '/api/v1/subscribers', key, {
    channelCode,
    platform: 'web',
    token: subscription.json,
  });
  expect(response.statusCode).toBe(201);
  return { id: response.body.data.id as string, subscription };
}

const register = (key: string, channelCode: string, platform: string, token: unknown) =>
  registerSubscriber(h, key, channelCode, platform, token);
const finalNotification = (key: string, id: string) => waitForFinal(h, key, id);

const messagesTo = (subscription: FakeSubscription) =>
  h.webPush.messages.filter((message) => message.subscriptionId === subscription.id);

describe('Web Push delivery', () => {
  it('one request reaches iOS, Android and a browser; the service worker gets the documented JSON', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    await register(account.publishableKey, 'orders', 'ios', iosToken(71));
    await register(account.publishableKey, 'orders', 'android', androidToken(71));
    const { subscription } = await subscribeBrowser(account.publishableKey, 'orders');
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'orders',
      title: 'Order shipped',
      body: 'Your parcel is on its way',
      url: 'https://shop.example/orders/42',
      imageUrl: 'https://shop.example/parcel.png',
      iconUrl: 'https://shop.example/icon-192.png',
      data: { orderId: '42' },
      badge: 3,
      ttlSeconds: 3600,
    });
    expect(sent.statusCode).toBe(201);
    const id = sent.body.data.id as string;
    const final = await finalNotification(account.secretKey, id);
    expect(final).toMatchObject({ status: 'sent', recipientCount: 3, stats: { delivered: 3, failed: 0, pending: 0 } });

    const [message] = messagesTo(subscription);
    expect(message).toMatchObject({ status: 201, ttl: 3600, urgency: 'high', topic: id, decryptError: null });
    expect(message!.vapid).toEqual({ aud: h.webPush.url, sub: h.vapidKeys.subject, exp: expect.any(Number) });
    expect(message!.vapidPublicKey).toBe(h.vapidKeys.publicKey);
    expect(message!.message).toEqual({
      web_push: 8030,
      notification: {
        title: 'Order shipped',
        body: 'Your parcel is on its way',
        navigate: 'https://shop.example/orders/42',
        tag: id,
        image: 'https://shop.example/parcel.png',
        icon: 'https://shop.example/icon-192.png',
        data: { clarion: true, data: { orderId: '42' } },
      },
      app_badge: 3,
      mutable: true,
      clarionReceipt: expect.stringMatching(/^n[0-9a-z]{52}[\w-]{22}$/),
    });
    // A browser with Declarative Web Push shows it by itself (docs/web-push.md, "What the browser receives").
    expect(message!.declarative).toMatchObject({ kind: 'declarative', message: { appBadge: 3, mutable: true } });

    const channel = (await get(h.app, '/api/v1/channels/orders', account.secretKey)).body.data;
    expect(channel.subscriberCount).toEqual({ total: 3, ios: 1, android: 1, web: 1 });
    const delivered = (await listEvents(h.store.db, account.id)).find(
      (event) => event.type === 'notification.delivered',
    )!;
    expect(delivered.data).toMatchObject({
      delivered: 3,
      platforms: {
        ios: { delivered: 1, failed: 0 },
        android: { delivered: 1, failed: 0 },
        web: { delivered: 1, failed: 0 },
      },
    });
  });

  it('normal priority → Urgency normal; no ttlSeconds → the 28-day TTL; title and navigate always present', async () => {
    const account = await h.newAccount({ channels: ['quiet'] });
    const { subscription } = await subscribeBrowser(account.publishableKey, 'quiet');
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'quiet',
      body: 'Just so you know',
      priority: 'normal',
    });
    await finalNotification(account.secretKey, sent.body.data.id);
    const [message] = messagesTo(subscription);
    expect(message).toMatchObject({ status: 201, urgency: 'normal', ttl: 28 * 24 * 3600 });
    // Without a title or url: the "" title and the page to open the format requires, and data.url null for the worker.
    expect(message!.message).toEqual({
      web_push: 8030,
      notification: {
        title: '',
        body: 'Just so you know',
        navigate: h.config.baseUrl,
        tag: sent.body.data.id,
        data: { clarion: true, url: null },
      },
      mutable: true,
      clarionReceipt: expect.stringMatching(/^n[0-9a-z]{52}[\w-]{22}$/),
    });
    expect(message!.declarative?.kind).toBe('declarative');
  });

  it('gone (410, 404) → the subscriber is unsubscribed, with its event for the webhook', async () => {
    const account = await h.newAccount({ channels: ['gone'] });
    const gone410 = await subscribeBrowser(account.publishableKey, 'gone');
    const gone404 = await subscribeBrowser(account.publishableKey, 'gone');
    const live = await subscribeBrowser(account.publishableKey, 'gone');
    h.webPush.expire(gone410.subscription.id, 410);
    h.webPush.expire(gone404.subscription.id, 404);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'gone', title: 'Hello' });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 1, failed: 2 } });
    const failures = (await get(h.app, `/api/v1/notifications/${final.id}/failures`, account.secretKey)).body.data;
    expect(failures.map((f: any) => [f.subscriberId, f.platform, f.reason]).sort()).toEqual(
      [
        [gone410.id, 'web', 'token_unregistered'],
        [gone404.id, 'web', 'token_unregistered'],
      ].sort(),
    );
    const unsubscribed = (await listEvents(h.store.db, account.id))
      .filter((event) => event.type === 'subscriber.unsubscribed')
      .map((event) => event.data as any);
    expect(unsubscribed.map((data) => [data.subscriberId, data.reason]).sort()).toEqual(
      [
        [gone410.id, 'token_unregistered'],
        [gone404.id, 'token_unregistered'],
      ].sort(),
    );
    expect((await get(h.app, '/api/v1/channels/gone', account.secretKey)).body.data.subscriberCount.web).toBe(1);
    expect(messagesTo(live.subscription)).toHaveLength(1);
  });

  it('throttled (429 with Retry-After) → retried after it, with the TTL that is left', async () => {
    const account = await h.newAccount({ channels: ['busy'] });
    const { subscription } = await subscribeBrowser(account.publishableKey, 'busy');
    h.webPush.setSubscriptionOutcome(subscription.id, { status: 429, retryAfterSeconds: 120 });
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'busy',
      title: 'Later',
      ttlSeconds: 3600,
    });
    const id = sent.body.data.id as string;
    const followUps = async () =>
      (
        await h.store.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', 'notification.send')
          .where('state', '=', 'available')
          .execute()
      ).filter(
        // Round 1 only: the first send job may not have been claimed yet.
        (job) => JSON.parse(job.payload).notificationId === id && JSON.parse(job.payload).round === 1,
      );
    await waitFor(async () => (await followUps()).length === 1, 10_000, 'the retry job');
    const [job] = await followUps();
    expect(JSON.parse(job!.payload)).toMatchObject({ platform: 'web', round: 1 });
    expect(job!.run_at - h.clock.now()).toBeGreaterThanOrEqual(120_000);

    h.webPush.setSubscriptionOutcome(subscription.id, null);
    h.clock.advance(121_000);
    h.worker.pool.wake();
    const final = await finalNotification(account.secretKey, id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 1, failed: 0 } });
    expect(messagesTo(subscription).map((message) => [message.status, message.ttl])).toEqual([
      [429, 3600],
      [201, 3600 - 121],
    ]);
  });

  it('VAPID mismatch for a whole batch → fails loudly, nobody unsubscribed; a lone mismatched browser fails and stays subscribed', async () => {
    const account = await h.newAccount({ channels: ['rotated', 'mixed'] });
    const otherKey = generateVapidKeyPair().publicKey;
    for (let n = 0; n < 10; n += 1) await subscribeBrowser(account.publishableKey, 'rotated', otherKey);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'rotated', title: 'Hi' });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'failed', stats: { delivered: 0, failed: 10 } });
    const failures = (await get(h.app, `/api/v1/notifications/${final.id}/failures`, account.secretKey)).body.data;
    expect(new Set(failures.map((f: any) => f.reason))).toEqual(
      new Set(['provider_configuration:web-push:403:errno109']),
    );
    expect((await get(h.app, '/api/v1/channels/rotated', account.secretKey)).body.data.subscriberCount.web).toBe(10);
    expect(
      h.logs.some(
        (line) => line.level === 50 && String(line.msg).includes('VAPID') && String(line.msg).includes(h.webPush.url),
      ),
    ).toBe(true);

    // A browser subscribed with another key is refused for our signature, not gone: it fails and stays.
    const stale = await subscribeBrowser(account.publishableKey, 'mixed', otherKey);
    await subscribeBrowser(account.publishableKey, 'mixed');
    const mixed = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'mixed', title: 'Hi' });
    expect(await finalNotification(account.secretKey, mixed.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 1, failed: 1 },
    });
    const staleFailures = (await get(h.app, `/api/v1/notifications/${mixed.body.data.id}/failures`, account.secretKey))
      .body.data;
    expect(staleFailures).toEqual([
      expect.objectContaining({ subscriberId: stale.id, reason: 'web-push:403:errno109' }),
    ]);
    expect((await get(h.app, '/api/v1/channels/mixed', account.secretKey)).body.data.subscriberCount.web).toBe(2);
  });

  it('5 delivered and 20 answered 403 in one batch → the 20 fail and nobody is unsubscribed (403 is about the request, not the subscription)', async () => {
    const account = await h.newAccount({ channels: ['partly'] });
    const otherKey = generateVapidKeyPair().publicKey;
    for (let n = 0; n < 5; n += 1) await subscribeBrowser(account.publishableKey, 'partly');
    const refused = [];
    for (let n = 0; n < 20; n += 1) refused.push(await subscribeBrowser(account.publishableKey, 'partly', otherKey));
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'partly', title: 'Hi' });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 5, failed: 20 } });
    const failures = (await get(h.app, `/api/v1/notifications/${final.id}/failures?limit=100`, account.secretKey)).body
      .data;
    expect(failures.map((f: any) => [f.subscriberId, f.reason]).sort()).toEqual(
      refused.map(({ id }) => [id, 'web-push:403:errno109']).sort(),
    );
    expect((await get(h.app, '/api/v1/channels/partly', account.secretKey)).body.data.subscriberCount.web).toBe(25);
    expect(
      (await listEvents(h.store.db, account.id)).filter((event) => event.type === 'subscriber.unsubscribed'),
    ).toEqual([]);
  });

  it('a body naming the subscription as gone unsubscribes whatever the status (autopush errno 102, 106)', async () => {
    const account = await h.newAccount({ channels: ['named'] });
    const invalid = await subscribeBrowser(account.publishableKey, 'named');
    const gone = await subscribeBrowser(account.publishableKey, 'named');
    h.webPush.setSubscriptionOutcome(invalid.subscription.id, {
      status: 400,
      body: { code: 400, errno: 102, error: 'Bad Request', message: 'Invalid URL endpoint' },
    });
    h.webPush.setSubscriptionOutcome(gone.subscription.id, {
      status: 410,
      body: { code: 410, errno: 106, error: 'Gone', message: 'Invalid subscription' },
    });
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'named', title: 'Hi' });
    const final = await finalNotification(account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'failed', stats: { delivered: 0, failed: 2 } });
    const unsubscribed = (await listEvents(h.store.db, account.id))
      .filter((event) => event.type === 'subscriber.unsubscribed')
      .map((event) => event.data as any);
    expect(unsubscribed.map((data) => [data.subscriberId, data.reason]).sort()).toEqual(
      [
        [invalid.id, 'token_invalid'],
        [gone.id, 'token_unregistered'],
      ].sort(),
    );
  });

  it("judges each push service alone: Apple refusing the subject for all its browsers is our configuration, the other service's browsers are delivered", async () => {
    // The instance's subject comes from the harness's http://localhost base URL: Apple refuses it, autopush takes it.
    expect(h.vapidKeys.subject).toBe('mailto:webpush@localhost');
    const apple = await startFakeWebPush({ clock: h.clock, service: 'apple' });
    try {
      const account = await h.newAccount({ channels: ['safari'] });
      const safari = [];
      for (let n = 0; n < 12; n += 1) {
        const subscription = apple.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
        safari.push(await register(account.publishableKey, 'safari', 'web', subscription.json));
      }
      for (let n = 0; n < 3; n += 1) await subscribeBrowser(account.publishableKey, 'safari');
      const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'safari',
        title: 'Hi',
      });
      const final = await finalNotification(account.secretKey, sent.body.data.id);
      expect(final).toMatchObject({ status: 'sent', stats: { delivered: 3, failed: 12 } });
      const failures = (await get(h.app, `/api/v1/notifications/${final.id}/failures?limit=100`, account.secretKey))
        .body.data;
      expect(failures.map((f: any) => [f.subscriberId, f.reason]).sort()).toEqual(
        safari.map((id) => [id, 'provider_configuration:web-push:403:BadJwtToken']).sort(),
      );
      expect(apple.messages.every((message) => message.status === 403)).toBe(true);
      expect((await get(h.app, '/api/v1/channels/safari', account.secretKey)).body.data.subscriberCount.web).toBe(15);
      const logged = h.logs.find((line) => line.level === 50 && String(line.msg).includes(apple.url));
      expect(String(logged?.msg)).toContain('CLARION_VAPID_SUBJECT');
    } finally {
      await apple.close();
    }
  });

  it('marks an app failing when a push service refuses its VAPID signature for every browser, with app.credentials_failed', async () => {
    const apple = await startFakeWebPush({ clock: h.clock, service: 'apple' });
    try {
      const account = await h.newAccount();
      const created = await post(h.app, '/api/v1/apps', account.secretKey, { name: 'Web app' });
      expect(created.statusCode).toBe(201);
      const app = created.body.data;
      expect((await post(h.app, '/api/v1/channels', account.secretKey, { code: 'app-web' })).body.data.appId).toBe(
        app.id,
      );
      for (let n = 0; n < 10; n += 1)
        await register(
          account.publishableKey,
          'app-web',
          'web',
          apple.subscribe({ applicationServerKey: app.web.vapidPublicKey }).json,
        );
      const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'app-web',
        title: 'Hi',
      });
      expect(await finalNotification(account.secretKey, sent.body.data.id)).toMatchObject({
        status: 'failed',
        stats: { delivered: 0, failed: 10 },
      });
      const shown = (await get(h.app, `/api/v1/apps/${app.id}`, account.secretKey)).body.data;
      expect(shown.credentials).toMatchObject({
        status: 'failing',
        error: 'provider_configuration:web-push:403:BadJwtToken',
      });
      const failed = (await listEvents(h.store.db, account.id)).filter(
        (event) => event.type === 'app.credentials_failed',
      );
      expect(failed.map((event) => event.data)).toEqual([
        {
          appId: app.id,
          platform: 'web',
          reason: 'provider_configuration:web-push:403:BadJwtToken',
          fix: expect.stringContaining(apple.url),
        },
      ]);
      expect((await get(h.app, '/api/v1/channels/app-web', account.secretKey)).body.data.subscriberCount.web).toBe(10);
    } finally {
      await apple.close();
    }
  });
});

describe('Web Push endpoint safety at send time', () => {
  it('a subscription whose endpoint now leads to loopback (DNS rebinding) is refused at connect: nothing sent, not unsubscribed', async () => {
    const strict = await startDeliveryHarness({ configure: { allowPrivateAddresses: false } });
    try {
      const account = await strict.newAccount({ channels: ['rebind'] });
      const subscription = strict.webPush.subscribe({ applicationServerKey: strict.vapidKeys.publicKey });
      // Registered while its name was public (a name that does not resolve here passes registration)…
      const registered = await post(strict.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'rebind',
        platform: 'web',
        token: { ...subscription.json, endpoint: 'https://push.example.net/push/abc' },
      });
      expect(registered.statusCode).toBe(201);
      // …and the name now resolves to the loopback fake (as if its DNS answer changed).
      const rebound = JSON.stringify({
        ...subscription.json,
        endpoint: subscription.endpoint.replace('127.0.0.1', 'localhost'),
      });
      await strict.store.db
        .updateTable('subscribers')
        .set({ token: rebound })
        .where('id', '=', registered.body.data.id)
        .execute();

      const sent = await post(strict.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'rebind',
        title: 'Hi',
      });
      const final = await waitForFinal(strict, account.secretKey, sent.body.data.id);
      expect(final.status).toBe('failed');
      const failures = (await get(strict.app, `/api/v1/notifications/${final.id}/failures`, account.secretKey)).body
        .data;
      expect(failures).toEqual([
        expect.objectContaining({ subscriberId: registered.body.data.id, platform: 'web', reason: 'endpoint_refused' }),
      ]);
      expect(strict.webPush.messages).toHaveLength(0);
      expect((await get(strict.app, '/api/v1/channels/rebind', account.secretKey)).body.data.subscriberCount.web).toBe(
        1,
      );
    } finally {
      await strict.close();
    }
  });
});
