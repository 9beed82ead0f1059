import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { rawRequest } from '../../harness/api-routes.ts';
import { get, post } from '../../harness/requests.ts';
import { subscribe, subscribeDevice } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/subscribers/:id/unsubscribe → 200', () => {
  it.each([
    ['a publishable key with the iOS token it registered', 'publishableKey', 'ios', true],
    ['a publishable key with the Android token it registered', 'publishableKey', 'android', true],
    ['a publishable key with the PushSubscription it registered', 'publishableKey', 'web', true],
    ['a secret key, without a token', 'secretKey', 'ios', false],
  ] as const)(
    'unsubscribes with %s and records subscriber.unsubscribed (reason requested)',
    async (_name, which, platform, proves) => {
      const account = await t.newAccount({ channels: ['news'] });
      const { id, token } = await subscribeDevice(t.app, account.publishableKey, 'news', platform);
      t.clock.advance(1000);
      const data = expectSuccess(
        await post(t.app, `/api/v1/subscribers/${id}/unsubscribe`, account[which], proves ? { token } : undefined),
        200,
      );
      expect(data).toMatchObject({
        id,
        channelCode: 'news',
        platform,
        status: 'unsubscribed',
        unsubscribeReason: 'requested',
        unsubscribedAt: new Date(t.clock.now()).toISOString(),
      });
      const events = await listEvents(t.store.db, account.id);
      expect(events.at(-1)).toEqual({
        id: expect.any(String),
        type: 'subscriber.unsubscribed',
        data: { subscriberId: id, channelCode: 'news', platform, reason: 'requested' },
      });
      expect(
        expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).subscriberCount.total,
      ).toBe(0);
    },
  );

  it('is idempotent: a second call answers 200 with the first unsubscription and records no second event', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const { id, token } = await subscribeDevice(t.app, account.publishableKey, 'news');
    const first = expectSuccess(
      await post(t.app, `/api/v1/subscribers/${id}/unsubscribe`, account.publishableKey, { token }),
      200,
    );
    t.clock.advance(60_000);
    expect(
      expectSuccess(await post(t.app, `/api/v1/subscribers/${id}/unsubscribe`, account.publishableKey, { token }), 200),
    ).toEqual(first);
    expect(
      (await listEvents(t.store.db, account.id)).filter((event) => event.type === 'subscriber.unsubscribed'),
    ).toHaveLength(1);
  });

  it('accepts from a secret key the bodies clients send on a bodiless POST: none, empty with a JSON type, or {}', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const url = `/api/v1/subscribers/${await subscribe(t.app, account.publishableKey, 'news')}/unsubscribe`;
    expectSuccess(await rawRequest(t.app, 'POST', url, account.secretKey, undefined), 200);
    expectSuccess(
      await rawRequest(t.app, 'POST', url, account.secretKey, '', { 'content-type': 'application/json' }),
      200,
    );
    expectSuccess(
      await rawRequest(t.app, 'POST', url, account.secretKey, '{}', { 'content-type': 'application/json' }),
      200,
    );
  });

  it('stops counting the subscriber as a recipient', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const { id, token } = await subscribeDevice(t.app, account.publishableKey, 'news');
    await subscribe(t.app, account.publishableKey, 'news');
    expectSuccess(await post(t.app, `/api/v1/subscribers/${id}/unsubscribe`, account.publishableKey, { token }), 200);
    expect(
      expectSuccess(
        await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
        201,
      ).recipientCount,
    ).toBe(1);
  });
});
