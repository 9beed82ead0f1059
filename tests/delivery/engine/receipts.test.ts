import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintReceipt, receiptKey } from '../../../src/domain/receipt.ts';
import { listEvents } from '../../../src/store/events-queries.ts';
import { expectError } from '../../harness/api-expect.ts';
import { del, get, post } from '../../harness/requests.ts';
import type { TestAccount } from '../../harness/test-app.ts';
import {
  androidToken,
  finalNotification,
  iosToken,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * Receipts end to end (docs/engagement.md): each push carries `clarionReceipt` where its platform's app reads it (a
 * top-level key of the APNs payload, a key of FCM `data`, a member of the Web Push JSON); handed back to
 * POST /api/v1/receipts it moves the notification's counts once and tells webhooks; forged, crossed and erased-user
 * receipts change nothing.
 */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

const report = (body: unknown) => post(h.app, '/api/v1/receipts', null, body);

async function sendToThreePlatforms(
  account: TestAccount,
  channelCode: string,
  n: number,
  extra: Record<string, unknown> = {},
) {
  const register = async (platform: string, token: unknown, externalId: string) => {
    const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode,
      platform,
      token,
      externalId,
    });
    expect(response.statusCode).toBe(201);
    return response.body.data.id as string;
  };
  const browser = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
  const ids = {
    ios: await register('ios', iosToken(n), `ios-user-${n}`),
    android: await register('android', androidToken(n), `android-user-${n}`),
    web: await register('web', browser.json, `web-user-${n}`),
  };
  const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
    channelCode,
    title: 'Your order shipped',
    data: { orderId: '42' },
    ...extra,
  });
  expect(sent.statusCode).toBe(201);
  const notification = await finalNotification(h, account.secretKey, sent.body.data.id);
  expect(notification.stats).toMatchObject({ delivered: 3, received: 0, opened: 0 });
  const receipts = {
    ios: (h.apns.requests.find((request) => request.token === iosToken(n))!.payload as any).clarionReceipt as string,
    android: (h.fcm.requests.find((request) => request.target?.value === androidToken(n))!.message as any).data
      .clarionReceipt as string,
    web: (h.webPush.messages.find((message) => message.subscriptionId === browser.id)!.message as any)
      .clarionReceipt as string,
  };
  return { id: notification.id as string, ids, receipts, browser };
}

describe('receipts', () => {
  it('travel in every platform’s push, count once per event, and tell webhooks of opens and actions', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const { id, ids, receipts } = await sendToThreePlatforms(account, 'orders', 7101);
    for (const receipt of Object.values(receipts)) expect(receipt).toMatch(/^n[0-9a-z]{52}[A-Za-z0-9_-]{22}$/);
    // The caller's data is untouched beside it.
    expect((h.fcm.requests.at(-1)!.message as any).data.orderId).toBe('42');

    expect(await report({ receipt: receipts.ios, event: 'opened' })).toMatchObject({
      statusCode: 202,
      body: { data: { result: 'counted' } },
    });
    // The same receipt and event again counts once.
    expect((await report({ receipt: receipts.ios, event: 'opened' })).body.data.result).toBe('duplicate');
    // A batch, as an app that queued them offline sends: the Android open, its action, and the web receipt.
    const batch = await report({
      receipts: [
        { receipt: receipts.android, event: 'received' },
        { receipt: receipts.android, event: 'action', actionId: 'track' },
        { receipt: receipts.web, event: 'dismissed' },
        { receipt: receipts.web, event: 'dismissed' },
      ],
    });
    expect(batch.statusCode).toBe(202);
    expect(batch.body.data.results).toEqual(['counted', 'counted', 'counted', 'duplicate']);

    const stats = (await get(h.app, `/api/v1/notifications/${id}`, account.secretKey)).body.data.stats;
    // An open, a dismissal or an action counts as received too.
    expect(stats).toMatchObject({ delivered: 3, received: 3, opened: 1, dismissed: 1, actions: 1 });
    expect(stats.byPlatform).toEqual({
      android: { delivered: 1, failed: 0, received: 1, opened: 0, dismissed: 0, actions: 1 },
      ios: { delivered: 1, failed: 0, received: 1, opened: 1, dismissed: 0, actions: 0 },
      web: { delivered: 1, failed: 0, received: 1, opened: 0, dismissed: 1, actions: 0 },
    });
    const listed = (await get(h.app, '/api/v1/notifications?limit=1', account.secretKey)).body.data[0];
    expect(listed.stats).toMatchObject({ opened: 1, received: 3 });
    // The channel's day adds up its notifications' counts; so does the channel's 30-day summary.
    const day = (await get(h.app, '/api/v1/channels/orders/engagement?days=1', account.secretKey)).body.data;
    const totals = { notifications: 1, delivered: 3, received: 3, opened: 1, openRate: 1 / 3 };
    expect(day.days).toEqual([{ date: expect.any(String), ...totals }]);
    expect((await get(h.app, '/api/v1/channels/orders', account.secretKey)).body.data.engagement).toEqual(totals);

    const events = (await listEvents(h.store.db, account.id)).filter(
      (event) => event.type.startsWith('notification.') && event.type !== 'notification.delivered',
    );
    expect(events.map((event) => [event.type, event.data])).toEqual([
      [
        'notification.opened',
        {
          notificationId: id,
          channelCode: 'orders',
          subscriberId: ids.ios,
          externalId: 'ios-user-7101',
          platform: 'ios',
        },
      ],
      [
        'notification.action',
        {
          notificationId: id,
          channelCode: 'orders',
          subscriberId: ids.android,
          externalId: 'android-user-7101',
          platform: 'android',
          actionId: 'track',
        },
      ],
    ]);
  });

  it('carry action buttons to every platform, and a tap on one tells webhooks its id', async () => {
    const account = await h.newAccount({ channels: ['deploys'] });
    const actions = [
      { id: 'approve', title: 'Approve' },
      { id: 'logs', title: 'Logs', url: 'https://ci.example/deploys/42' },
    ];
    const { id, ids, receipts, browser } = await sendToThreePlatforms(account, 'deploys', 7104, { actions });
    const apns = h.apns.requests.find((request) => request.token === iosToken(7104))!.payload as any;
    expect(apns.clarionActions).toEqual(actions);
    expect(apns.aps['mutable-content']).toBe(1);
    const fcm = h.fcm.requests.find((request) => request.target?.value === androidToken(7104))!.message as any;
    expect(JSON.parse(fcm.data.clarionActions)).toEqual(actions);
    const web = h.webPush.messages.find((message) => message.subscriptionId === browser.id)!.message as any;
    expect(web.notification.actions.map((action: any) => [action.action, action.title])).toEqual([
      ['approve', 'Approve'],
      ['logs', 'Logs'],
    ]);

    const taps = await report({
      receipts: Object.values(receipts).map((receipt) => ({ receipt, event: 'action', actionId: 'approve' })),
    });
    expect(taps.body.data.results).toEqual(['counted', 'counted', 'counted']);
    const stats = (await get(h.app, `/api/v1/notifications/${id}`, account.secretKey)).body.data.stats;
    expect(stats).toMatchObject({ received: 3, opened: 0, actions: 3 });
    const tapped = (await listEvents(h.store.db, account.id)).filter((event) => event.type === 'notification.action');
    expect(tapped.map((event) => [(event.data as any).subscriberId, (event.data as any).actionId])).toEqual([
      [ids.ios, 'approve'],
      [ids.android, 'approve'],
      [ids.web, 'approve'],
    ]);
  });

  it('refuses forged, altered, crossed and erased-user receipts, counting nothing', async () => {
    const account = await h.newAccount({ channels: ['deals'] });
    const other = await h.newAccount({ channels: ['deals'] });
    const mine = await sendToThreePlatforms(account, 'deals', 7201);
    const theirs = await sendToThreePlatforms(other, 'deals', 7202);
    const key = receiptKey(h.secretKey);
    const last = mine.receipts.ios.at(-1) === 'A' ? 'B' : 'A';
    const refusals = [
      'n'.padEnd(75, 'x'),
      `${mine.receipts.ios.slice(0, -1)}${last}`,
      mine.receipts.ios.slice(0, 60),
      // Signed with another key: a receipt of another Clarion instance.
      mintReceipt(receiptKey(Buffer.alloc(32, 7)), mine.id, mine.ids.ios),
      // Genuine MAC, but the subscriber is another account's: never a pair a push was sent to.
      mintReceipt(key, mine.id, theirs.ids.ios),
    ];
    for (const receipt of refusals) expectError(await report({ receipt, event: 'opened' }), 'invalid_receipt');
    // In a batch, each is `invalid` and the genuine one beside them still counts.
    const batch = await report({
      receipts: [
        ...refusals.map((receipt) => ({ receipt, event: 'opened' })),
        { receipt: mine.receipts.web, event: 'opened' },
      ],
    });
    expect(batch.body.data.results).toEqual([...refusals.map(() => 'invalid'), 'counted']);

    // Erasing the person erases what their receipts recorded, and their receipts stop working.
    expect((await report({ receipt: mine.receipts.android, event: 'opened' })).statusCode).toBe(202);
    expect((await del(h.app, '/api/v1/users/android-user-7201', account.secretKey)).statusCode).toBe(200);
    const left = await h.store.db
      .selectFrom('receipts')
      .select('subscriber_id')
      .where('notification_id', '=', mine.id)
      .execute();
    expect(left.map((row) => row.subscriber_id)).toEqual([mine.ids.web, mine.ids.web]);
    expectError(await report({ receipt: mine.receipts.android, event: 'dismissed' }), 'invalid_receipt');

    const stats = (await get(h.app, `/api/v1/notifications/${mine.id}`, account.secretKey)).body.data.stats;
    expect(stats).toMatchObject({ opened: 2, received: 2 });
    const theirStats = (await get(h.app, `/api/v1/notifications/${theirs.id}`, other.secretKey)).body.data.stats;
    expect(theirStats).toMatchObject({ opened: 0, received: 0 });
  });

  it('are left out of every push of an account that turned them off, and not stored', async () => {
    const account = await h.newAccount({ channels: ['quiet'] });
    await h.store.db.updateTable('accounts').set({ receipts_enabled: 0 }).where('id', '=', account.id).execute();
    const register = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'quiet',
      platform: 'ios',
      token: iosToken(7301),
    });
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'quiet', title: 'Hi' });
    await finalNotification(h, account.secretKey, sent.body.data.id);
    const payload = h.apns.requests.find((request) => request.token === iosToken(7301))!.payload as any;
    expect(payload.clarionReceipt).toBeUndefined();
    // A receipt from before the switch is answered, and not kept.
    const before = mintReceipt(receiptKey(h.secretKey), sent.body.data.id, register.body.data.id);
    expect((await report({ receipt: before, event: 'opened' })).body.data.result).toBe('ignored');
    const stored = await h.store.db
      .selectFrom('receipts')
      .select('event')
      .where('notification_id', '=', sent.body.data.id)
      .execute();
    expect(stored).toEqual([]);
  });
});
