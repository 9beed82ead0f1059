import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, ISO_UTC } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 201', () => {
  it('stores the notification as queued and returns the pinned fields', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'android',
      token: 'fcm-token-1',
    });
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Hello',
      body: 'World',
      url: 'https://example.com/a',
    });
    expect(response.statusCode).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toMatchObject({
      channelCode: 'news',
      title: 'Hello',
      recipientCount: 1,
      status: 'queued',
    });
    expect(response.body.data.id).toMatch(/^ntf_[0-9a-z]{26}$/);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });

  it('returns every field, with defaults, and GET returns the same notification', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const data = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'Order shipped 📦',
        body: 'Arrives Tuesday',
        url: 'http://example.com/orders/42',
        data: { orderId: '42' },
        imageUrl: 'https://example.com/box.png',
        sound: 'default',
        badge: 3,
        priority: 'normal',
        ttlSeconds: 3600,
      }),
      201,
    );
    expect(data).toMatchObject({
      id: expect.stringMatching(/^ntf_/),
      channelCode: 'news',
      title: 'Order shipped 📦',
      body: 'Arrives Tuesday',
      url: 'http://example.com/orders/42',
      data: { orderId: '42' },
      imageUrl: 'https://example.com/box.png',
      sound: 'default',
      badge: 3,
      priority: 'normal',
      ttlSeconds: 3600,
      status: 'queued',
      sendAt: null,
      recipientCount: 0,
      stats: { delivered: 0, failed: 0, pending: 0 },
      createdAt: new Date(t.clock.now()).toISOString(),
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    expect(data.createdAt).toMatch(ISO_UTC);
    expect(expectSuccess(await get(t.app, `/api/v1/notifications/${data.id}`, account.secretKey), 200)).toEqual(data);
  });

  it('takes a silent push without a title or body and shows it back; others show contentAvailable false', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const silent = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        contentAvailable: true,
        data: { sync: 'inbox' },
      }),
      201,
    );
    expect(silent).toMatchObject({ contentAvailable: true, title: null, body: null, data: { sync: 'inbox' } });
    const shown = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      201,
    );
    expect(shown.contentAvailable).toBe(false);
  });

  it("keeps the platforms' alert options and shows them back; a notification without them shows null", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const options = {
      subtitle: 'Via DHL',
      category: 'ORDER_SHIPPED',
      interruptionLevel: 'time-sensitive',
      relevanceScore: 0.75,
      targetContentId: 'orders',
      androidChannelId: 'shipping',
    };
    const data = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'Shipped',
        ...options,
      }),
      201,
    );
    expect(data).toMatchObject(options);
    expect(expectSuccess(await get(t.app, `/api/v1/notifications/${data.id}`, account.secretKey), 200)).toMatchObject(
      options,
    );
    const plain = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Plain' }),
      201,
    );
    expect(plain).toMatchObject({
      subtitle: null,
      category: null,
      interruptionLevel: null,
      relevanceScore: null,
      targetContentId: null,
      androidChannelId: null,
    });
  });

  it('keeps action buttons and shows them back; a notification without them shows null', async () => {
    const account = await t.newAccount({ channels: ['deploys'] });
    const actions = [
      { id: 'approve', title: 'Approve' },
      { id: 'logs', title: 'Logs', url: 'https://ci.example/deploys/42' },
    ];
    const data = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'deploys',
        title: 'Deploy v42?',
        actions,
      }),
      201,
    );
    expect(data.actions).toEqual(actions);
    expect(expectSuccess(await get(t.app, `/api/v1/notifications/${data.id}`, account.secretKey), 200).actions).toEqual(
      actions,
    );
    const plain = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'deploys', title: 'Plain' }),
      201,
    );
    expect(plain.actions).toBeNull();
  });

  it.each([
    ['a title only', { title: 'Only a title' }, { title: 'Only a title', body: null, priority: 'high' }],
    ['a body only', { body: 'Only a body' }, { title: null, body: 'Only a body', priority: 'high' }],
  ])('accepts %s', async (_name, content, expected) => {
    const account = await t.newAccount({ channels: ['news'] });
    expect(
      expectSuccess(
        await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', ...content }),
        201,
      ),
    ).toMatchObject(expected);
  });

  it('counts only the active subscribers of that channel as recipients', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    for (const platform of ['ios', 'android', 'web'] as const)
      await subscribe(t.app, account.publishableKey, 'news', platform);
    const gone = await subscribe(t.app, account.publishableKey, 'news');
    await post(t.app, `/api/v1/subscribers/${gone}/unsubscribe`, account.secretKey);
    await subscribe(t.app, account.publishableKey, 'sport');
    const data = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      201,
    );
    expect(data.recipientCount).toBe(3);
    expect(data.stats).toEqual({
      delivered: 0,
      failed: 0,
      skipped: 0,
      pending: 3,
      held: 0,
      received: 0,
      opened: 0,
      dismissed: 0,
      actions: 0,
      byPlatform: {},
    });
  });

  it('schedules a notification whose sendAt is in the future, and sends one in the past at once', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const future = new Date(t.clock.now() + 3_600_000).toISOString();
    const scheduled = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'Later',
        sendAt: future,
      }),
      201,
    );
    expect(scheduled).toMatchObject({ status: 'scheduled', sendAt: future });
    const past = new Date(t.clock.now() - 60_000).toISOString().replace('Z', '+00:00');
    expect(
      expectSuccess(
        await post(t.app, '/api/v1/notifications', account.secretKey, {
          channelCode: 'news',
          title: 'Now',
          sendAt: past,
        }),
        201,
      ),
    ).toMatchObject({
      status: 'queued',
      sendAt: null,
    });
  });

  it('normalises a sendAt with an offset to UTC', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const utc = new Date(Math.floor((t.clock.now() + 86_400_000) / 1000) * 1000);
    const withOffset = `${new Date(utc.getTime() + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
    const data = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'Later',
        sendAt: withOffset,
      }),
      201,
    );
    expect(data.sendAt).toBe(utc.toISOString());
  });

  it('charges one unit of the quota and says so in X-Quota-Limit / X-Quota-Remaining', async () => {
    const account = await t.newAccount({ channels: ['news'], plan: 'free' });
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Hi',
    });
    expectSuccess(response, 201);
    expect(response.headers['x-quota-limit']).toBe('250');
    expect(response.headers['x-quota-remaining']).toBe('249');
    expect(expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200)).toMatchObject({
      used: 1,
      remaining: 249,
    });
  });
});
