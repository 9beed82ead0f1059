import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { forgedReceipt, receiptRows, sentReceipt } from './receipts-fixture.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/receipts → 400', () => {
  it.each<[string, (receipt: string) => unknown, string[]]>([
    ['no receipt', () => ({ event: 'opened' }), ['receipt']],
    ['no event', (receipt) => ({ receipt }), ['event']],
    ['an unknown event', (receipt) => ({ receipt, event: 'liked' }), ['event']],
    ['an action without its id', (receipt) => ({ receipt, event: 'action' }), ['actionId']],
    ['an action id with another event', (receipt) => ({ receipt, event: 'opened', actionId: 'x' }), ['actionId']],
    ['one report beside a batch', (receipt) => ({ receipt, receipts: [{ receipt, event: 'opened' }] }), ['receipt']],
    ['an empty batch', () => ({ receipts: [] }), ['receipts']],
    [
      'a batch of 101',
      (receipt) => ({ receipts: Array.from({ length: 101 }, () => ({ receipt, event: 'opened' })) }),
      ['receipts'],
    ],
    [
      'a batch member without its id',
      (receipt) => ({ receipts: [{ receipt, event: 'action' }] }),
      ['receipts.0.actionId'],
    ],
  ])('validation_failed for %s, counting nothing', async (_name, body, fields) => {
    const { receipt, notificationId } = await sentReceipt(t);
    expectValidation(await post(t.app, '/api/v1/receipts', null, body(receipt)), fields);
    expect(await receiptRows(t, notificationId)).toEqual([]);
  });

  it('invalid_receipt for a receipt Clarion did not issue or one altered, counting nothing', async () => {
    const { receipt, notificationId } = await sentReceipt(t);
    for (const forged of ['not-a-receipt', forgedReceipt(receipt), `x${receipt.slice(1)}`]) {
      const error = expectError(
        await post(t.app, '/api/v1/receipts', null, { receipt: forged, event: 'opened' }),
        'invalid_receipt',
      );
      expect(error.message).toBe('This receipt is not one Clarion issued, or what it names no longer exists.');
    }
    expect(await receiptRows(t, notificationId)).toEqual([]);
  });
});
