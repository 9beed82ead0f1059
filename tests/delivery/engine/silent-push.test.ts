import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import {
  androidToken,
  iosToken,
  finalNotification as waitForFinal,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** Silent pushes (contentAvailable) end to end: an APNs background push, an FCM data-only message, browsers skipped. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

describe('a silent push', () => {
  it('wakes iOS and Android apps without showing anything, and skips browsers with a reason', async () => {
    const account = await h.newAccount({ channels: ['sync'] });
    const ios = iosToken(3101);
    const android = androidToken(3101);
    await registerSubscriber(h, account.publishableKey, 'sync', 'ios', ios);
    await registerSubscriber(h, account.publishableKey, 'sync', 'android', android);
    const browser = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
    const webId = await registerSubscriber(h, account.publishableKey, 'sync', 'web', browser.json);

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'sync',
      contentAvailable: true,
      data: { sync: 'inbox' },
      url: 'https://mail.example/inbox',
    });
    expect(sent.statusCode).toBe(201);
    const id = sent.body.data.id as string;
    const final = await waitForFinal(h, account.secretKey, id);
    expect(final).toMatchObject({
      status: 'sent',
      contentAvailable: true,
      failureReason: null,
      recipientCount: 3,
      stats: { delivered: 2, failed: 0, skipped: 1, pending: 0 },
    });

    const apns = h.apns.requests.find((request) => request.token === ios)!;
    expect(apns.status).toBe(200);
    expect(apns.headers['apns-push-type']).toBe('background');
    expect(apns.headers['apns-priority']).toBe('5');
    expect(apns.payload).toEqual({
      aps: { 'content-available': 1 },
      sync: 'inbox',
      url: 'https://mail.example/inbox',
      clarionReceipt: expect.stringMatching(/^n[0-9a-z]{52}[\w-]{22}$/),
    });
    expect(apns.handling).toEqual({ kind: 'woke-app' });

    const fcm = h.fcm.requests.find((request) => request.target?.value === android)!;
    expect(fcm.status).toBe(200);
    expect(fcm.message).toEqual({
      token: android,
      data: {
        sync: 'inbox',
        url: 'https://mail.example/inbox',
        clarionReceipt: expect.stringMatching(/^n[0-9a-z]{52}[\w-]{22}$/),
      },
      android: { priority: 'HIGH' },
    });

    expect(h.webPush.messages.filter((message) => message.subscriptionId === browser.id)).toEqual([]);
    const skipped = await get(h.app, `/api/v1/notifications/${id}/failures`, account.secretKey);
    expect(skipped.body.data).toEqual([
      {
        subscriberId: webId,
        platform: 'web',
        outcome: 'skipped',
        reason: 'silent_not_supported',
        failedAt: expect.any(String),
      },
    ]);
    // A skip is not a failure: the browser's subscriber shows none.
    const subscriber = await get(h.app, `/api/v1/subscribers/${webId}`, account.secretKey);
    expect(subscriber.body.data.lastFailure).toBeNull();
  });

  it('to browsers only: every recipient skipped, the notification sent to no one, not failed', async () => {
    const account = await h.newAccount({ channels: ['webonly'] });
    const browser = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
    await registerSubscriber(h, account.publishableKey, 'webonly', 'web', browser.json);
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'webonly',
      contentAvailable: true,
    });
    expect(sent.statusCode).toBe(201);
    const final = await waitForFinal(h, account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ status: 'sent', stats: { delivered: 0, failed: 0, skipped: 1, pending: 0 } });
  });
});
