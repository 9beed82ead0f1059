import { decodeTime } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintLiveActivityReceipt, receiptKey } from '../../../src/domain/receipt.ts';
import { pruneReceipts } from '../../../src/store/receipts-queries.ts';
import { forgedReceipt } from '../../api/receipts/receipts-fixture.ts';
import { del, get, post } from '../../harness/requests.ts';
import type { TestAccount } from '../../harness/test-app.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Receipts of Live Activities (docs/engagement.md, "Live Activities"): each device's push with an alert carries its
 * own receipt where the app can read it (iOS: the content state; Android: the data; web: the JSON the service worker
 * gets), taken here from what the fakes received, and reporting it moves the activity's `engagement`.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

async function browser(account: TestAccount, channelCode: string) {
  const subscription = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
  const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
    channelCode,
    platform: 'web',
    token: subscription.json,
    externalId: 'web-user',
  });
  expect(response.statusCode).toBe(201);
  return { subscriberId: response.body.data.id as string, subscription };
}

async function report(receipt: string, event: string) {
  return post(h.app, '/api/v1/receipts', null, { receipt, event });
}

async function engagement(account: TestAccount, id: string) {
  return (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data.engagement;
}

const progress = { channelCode: 'orders', template: 'progress', fields: { title: 'Order 7', progress: 0.1 } };

describe('Live Activity receipts', () => {
  it('ride each platform’s push with an alert, and count once per subscriber and event', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const ios = await h.iosDevice(account, 'orders', { osVersion: '17.5' });
    const android = await h.androidDevice(account, 'orders');
    const web = await browser(account, 'orders');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, progress);
    const id = started.body.data.id as string;
    await h.settle();

    const key = receiptKey(h.secretKey);
    const iosReceipt = (h.apnsPushes(ios.pushToStartToken!)[0]!.payload as any).aps['content-state'].clarionReceipt;
    const androidReceipt = (h.fcmPushes(android.token)[0]!.message as any).data.clarionReceipt;
    const webReceipt = (
      h.webPush.messages.find((message) => message.subscriptionId === web.subscription.id)!.message as any
    ).clarionReceipt;
    expect([iosReceipt, androidReceipt, webReceipt]).toEqual([
      mintLiveActivityReceipt(key, id, ios.subscriberId),
      mintLiveActivityReceipt(key, id, android.subscriberId),
      mintLiveActivityReceipt(key, id, web.subscriberId),
    ]);

    expect((await report(iosReceipt, 'received')).body.data).toEqual({ result: 'counted' });
    expect((await report(androidReceipt, 'opened')).body.data).toEqual({ result: 'counted' });
    expect((await report(webReceipt, 'dismissed')).body.data).toEqual({ result: 'counted' });
    // The same report again changes nothing; a forged one is refused and changes nothing.
    expect((await report(androidReceipt, 'opened')).body.data).toEqual({ result: 'duplicate' });
    const forged = await report(forgedReceipt(iosReceipt), 'opened');
    expect([forged.statusCode, forged.body.error.code]).toEqual([400, 'invalid_receipt']);
    expect(await engagement(account, id)).toEqual({ received: 3, opened: 1, dismissed: 1, actions: 0 });

    // A silent update carries none; an alerting one carries the same receipt again.
    h.clock.advance(1_000);
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.5 } });
    h.clock.advance(1_000);
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
      fields: { progress: 0.9 },
      alert: { title: 'Almost there' },
    });
    await h.settle();
    const [, silent, alerting] = h.fcmPushes(android.token).map((request) => (request.message as any).data);
    expect([silent.clarionReceipt, alerting.clarionReceipt]).toEqual([undefined, androidReceipt]);
  });

  it("are refused for another account's activity, and erased with their user", async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const web = await browser(account, 'orders');
    const other = await h.newAccount({ channels: ['orders'] });
    const theirs = (await post(h.app, '/api/v1/live-activities', other.secretKey, progress)).body.data.id as string;
    const id = (await post(h.app, '/api/v1/live-activities', account.secretKey, progress)).body.data.id as string;
    await h.settle();
    // A genuine receipt for a pair that never met: this subscriber and the other account's activity.
    const crossed = mintLiveActivityReceipt(receiptKey(h.secretKey), theirs, web.subscriberId);
    expect((await report(crossed, 'opened')).body.error.code).toBe('invalid_receipt');
    expect(await engagement(other, theirs)).toEqual({ received: 0, opened: 0, dismissed: 0, actions: 0 });

    const receipt = mintLiveActivityReceipt(receiptKey(h.secretKey), id, web.subscriberId);
    expect((await report(receipt, 'opened')).body.data).toEqual({ result: 'counted' });
    expect((await del(h.app, '/api/v1/users/web-user', account.secretKey)).statusCode).toBe(200);
    const rows = await h.store.db
      .selectFrom('live_activity_receipts')
      .selectAll()
      .where('live_activity_id', '=', id)
      .execute();
    expect(rows).toEqual([]);
    expect((await report(receipt, 'dismissed')).body.error.code).toBe('invalid_receipt');
    expect(await engagement(account, id)).toEqual({ received: 1, opened: 1, dismissed: 0, actions: 0 });
  });

  it('are deleted past the retention, the counts kept, and a later report is answered expired', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const web = await browser(account, 'orders');
    const id = (await post(h.app, '/api/v1/live-activities', account.secretKey, progress)).body.data.id as string;
    await h.settle();
    const receipt = mintLiveActivityReceipt(receiptKey(h.secretKey), id, web.subscriberId);
    expect((await report(receipt, 'opened')).body.data).toEqual({ result: 'counted' });
    const rows = () =>
      h.store.db.selectFrom('live_activity_receipts').select('event').where('live_activity_id', '=', id).execute();
    expect(await rows()).toHaveLength(2);

    // Past the retention as the id tells it: ids never go back in time in a process (monotonic ULIDs), so one made
    // after another file moved its clock ahead carries that later time.
    const madeAt = decodeTime(id.slice('lva_'.length).toUpperCase());
    h.clock.set(Math.max(h.clock.now(), madeAt) + h.config.receiptRetention + 1_000);
    expect(await pruneReceipts(h.store.db, h.clock.now(), h.config.receiptRetention)).toBeGreaterThanOrEqual(2);
    expect(await rows()).toEqual([]);
    expect((await report(receipt, 'dismissed')).body.data).toEqual({ result: 'expired' });
    expect(await engagement(account, id)).toEqual({ received: 1, opened: 1, dismissed: 0, actions: 0 });
  });

  it('are not put in the pushes of an account that turned receipts off', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const android = await h.androidDevice(account, 'orders');
    await h.store.db.updateTable('accounts').set({ receipts_enabled: 0 }).where('id', '=', account.id).execute();
    await post(h.app, '/api/v1/live-activities', account.secretKey, progress);
    await h.settle();
    expect((h.fcmPushes(android.token)[0]!.message as any).data.clarionReceipt).toBeUndefined();
  });
});
