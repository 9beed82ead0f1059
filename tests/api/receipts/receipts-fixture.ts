import { expect } from 'vitest';
import { mintReceipt, receiptKey } from '../../../src/domain/receipt.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';

/** A notification sent to one subscriber of a new account, and the receipt its push carries (docs/engagement.md). */
export async function sentReceipt(t: TestApp): Promise<{ receipt: string; notificationId: string; accountId: string }> {
  const account = await t.newAccount({ channels: ['news'] });
  const subscriber = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
    channelCode: 'news',
    platform: 'android',
    token: `fcm-${account.id}`,
  });
  expect(subscriber.statusCode).toBe(201);
  const sent = await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' });
  expect(sent.statusCode).toBe(201);
  return {
    receipt: mintReceipt(receiptKey(t.secretKey), sent.body.data.id, subscriber.body.data.id),
    notificationId: sent.body.data.id,
    accountId: account.id,
  };
}

/** `receipt` with its last character changed: the same shape, a MAC that does not match. */
export function forgedReceipt(receipt: string): string {
  return receipt.slice(0, -1) + (receipt.endsWith('A') ? 'B' : 'A');
}

/** The receipt rows of a notification: what a refused report must leave unchanged. */
export async function receiptRows(t: TestApp, notificationId: string): Promise<unknown[]> {
  return t.store.db
    .selectFrom('receipts')
    .selectAll()
    .where('notification_id', '=', notificationId)
    .orderBy('event')
    .execute();
}
