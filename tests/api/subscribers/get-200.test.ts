import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { send, subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/subscribers/:id → 200', () => {
  it('shows the subscriber with its details and its last failure', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'android', {
      externalId: 'alice',
      locale: 'en-GB',
    });
    const notification = await send(t.app, account.secretKey, 'news');
    await t.store.db
      .insertInto('delivery_failures')
      .values({
        notification_id: notification,
        subscriber_id: id,
        platform: 'android',
        reason: 'token_invalid',
        created_at: t.clock.now(),
      })
      .execute();
    const data = expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200);
    expect(data).toMatchObject({
      id,
      channelCode: 'news',
      platform: 'android',
      status: 'active',
      externalId: 'alice',
      locale: 'en-GB',
      timezone: null,
      tags: [],
    });
    expect(data.lastFailure).toEqual({
      notificationId: notification,
      reason: 'token_invalid',
      at: new Date(t.clock.now()).toISOString(),
    });
    expect(data.tokenPrefix).toMatch(/^fcm-.{4}…$/);
    expect(data.lastDeliveredAt).toBeNull();
  });

  it('lists its ten latest failed pushes, newest first, the first being lastFailure', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'android');
    const notifications: string[] = [];
    for (let n = 0; n < 12; n += 1) notifications.push(await send(t.app, account.secretKey, 'news'));
    const start = t.clock.now();
    const failures = notifications.map((notification, n) => ({
      notification_id: notification,
      subscriber_id: id,
      platform: 'android' as const,
      reason: `reason_${n}`,
      created_at: start + n * 1000,
    }));
    await t.store.db.insertInto('delivery_failures').values(failures).execute();
    const data = expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200);
    expect(data.recentFailures).toHaveLength(10);
    expect(data.recentFailures.map((failure: any) => failure.reason)).toEqual(
      Array.from({ length: 10 }, (_, n) => `reason_${11 - n}`),
    );
    expect(data.recentFailures[0]).toEqual({
      notificationId: notifications[11],
      reason: 'reason_11',
      at: new Date(start + 11_000).toISOString(),
    });
    expect(data.lastFailure).toEqual(data.recentFailures[0]);
  });

  it('shows no recent failures for a subscriber that never failed', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'ios');
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200)).toMatchObject({
      recentFailures: [],
      lastFailure: null,
      lastDeliveredAt: null,
    });
  });

  it('is readable with a key scoped to its channel', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news');
    const scoped = await account.key({ channels: ['news'] });
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, scoped.value), 200).id).toBe(id);
  });
});
