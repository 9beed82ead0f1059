import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintReceipt, receiptKey } from '../../../src/domain/receipt.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** An external id and an action id that JSON has to escape. */
const EXTERNAL_ID = 'Zoë "the \\ tester"\n\t\u0001 😀 </script>';
const ACTION_ID = 'reply "now" \\ ✓';

/** A notification to the channel's subscribers, with the counters its dispatch would have made (no worker runs here). */
async function sent(account: TestAccount): Promise<string> {
  const response = await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' });
  expect(response.statusCode).toBe(201);
  const id = response.body.data.id as string;
  await t.store.db
    .insertInto('notification_platform_stats')
    .values({ notification_id: id, platform: 'android', targeted: 2, delivered: 2, failed: 0 })
    .execute();
  return id;
}

async function register(account: TestAccount, n: number, externalId?: string): Promise<string> {
  const response = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
    channelCode: 'news',
    platform: 'android',
    token: `fcm-${account.id}-${n}`,
    ...(externalId === undefined ? {} : { externalId }),
  });
  expect(response.statusCode).toBe(201);
  return response.body.data.id as string;
}

async function counters(notificationId: string) {
  return t.store.db
    .selectFrom('notification_platform_stats')
    .select(['received', 'opened', 'dismissed', 'actions'])
    .where('notification_id', '=', notificationId)
    .executeTakeFirstOrThrow()
    .then((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])));
}

/** The account's webhook events of receipts, as stored: the JSON text itself. */
async function eventTexts(accountId: string): Promise<Array<[string, string]>> {
  const rows = await t.store.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('account_id', '=', accountId)
    .where('type', 'in', ['notification.opened', 'notification.action'])
    .orderBy('id')
    .execute();
  return rows.map((row) => [row.type, row.data]);
}

const sequence = [
  { event: 'received' },
  { event: 'opened' },
  { event: 'opened' },
  { event: 'received' },
  { event: 'dismissed' },
  { event: 'action', actionId: ACTION_ID },
  { event: 'action', actionId: 'other' },
] as const;
const answers = ['counted', 'counted', 'duplicate', 'duplicate', 'counted', 'counted', 'duplicate'];

describe('POST /api/v1/receipts: what a report stores', () => {
  // One report is one statement on PostgreSQL, a batch the statements of a transaction
  // (src/store/receipts-queries.ts): both count and tell webhooks alike.
  it('one report at a time: counts each event once, and writes the webhook data JSON.stringify writes', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const withId = await register(account, 1, EXTERNAL_ID);
    const withoutId = await register(account, 2);
    const notificationId = await sent(account);
    const key = receiptKey(t.secretKey);
    for (const subscriberId of [withId, withoutId]) {
      const receipt = mintReceipt(key, notificationId, subscriberId);
      const results = [];
      for (const report of sequence)
        results.push(expectSuccess(await post(t.app, '/api/v1/receipts', null, { receipt, ...report }), 202).result);
      expect(results).toEqual(answers);
    }
    expect(await counters(notificationId)).toEqual({ received: 2, opened: 2, dismissed: 2, actions: 2 });
    expect(await eventTexts(account.id)).toEqual(expectedEvents(notificationId, withId, withoutId));
  });

  it('a batch: the same', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const withId = await register(account, 1, EXTERNAL_ID);
    const withoutId = await register(account, 2);
    const notificationId = await sent(account);
    const key = receiptKey(t.secretKey);
    const receipts = [withId, withoutId].map((subscriberId) => mintReceipt(key, notificationId, subscriberId));
    for (const [index, report] of sequence.entries()) {
      const answer = expectSuccess(
        await post(t.app, '/api/v1/receipts', null, {
          receipts: receipts.map((receipt) => ({ receipt, ...report })),
        }),
        202,
      );
      expect(answer.results).toEqual([answers[index], answers[index]]);
    }
    expect(await counters(notificationId)).toEqual({ received: 2, opened: 2, dismissed: 2, actions: 2 });
    const events = await eventTexts(account.id);
    // In a batch, events are written in the order of the reports: the two subscribers' opens, then their actions.
    const expected = expectedEvents(notificationId, withId, withoutId);
    expect(events).toEqual([expected[0], expected[2], expected[1], expected[3]]);
  });
});

function expectedEvents(notificationId: string, withId: string, withoutId: string): Array<[string, string]> {
  const data = (subscriberId: string, externalId: string | null, actionId?: string) =>
    JSON.stringify({
      notificationId,
      channelCode: 'news',
      subscriberId,
      externalId,
      platform: 'android',
      ...(actionId === undefined ? {} : { actionId }),
    });
  return [
    ['notification.opened', data(withId, EXTERNAL_ID)],
    ['notification.action', data(withId, EXTERNAL_ID, ACTION_ID)],
    ['notification.opened', data(withoutId, null)],
    ['notification.action', data(withoutId, null, ACTION_ID)],
  ];
}
