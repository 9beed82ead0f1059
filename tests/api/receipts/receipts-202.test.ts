import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTime } from 'ulid';
import { pruneReceipts } from '../../../src/store/receipts-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { receiptRows, sentReceipt } from './receipts-fixture.ts';

let t: TestApp;
beforeAll(async () => {
  // A database of its own: pruning past the retention would delete other files' receipts in the shared one.
  t = await startTestApp({}, { isolatedDatabase: true });
});
afterAll(async () => t.close());

describe('POST /api/v1/receipts → 202', () => {
  it('takes one report without any key, once per receipt and event, an open counting as received too', async () => {
    const { receipt, notificationId } = await sentReceipt(t);
    const report = (event: string) => post(t.app, '/api/v1/receipts', null, { receipt, event });
    expect(expectSuccess(await report('opened'), 202)).toEqual({ result: 'counted' });
    expect(expectSuccess(await report('opened'), 202)).toEqual({ result: 'duplicate' });
    expect(expectSuccess(await report('received'), 202)).toEqual({ result: 'duplicate' });
    const rows = (await receiptRows(t, notificationId)) as Array<{ event: string; action_id: string | null }>;
    expect(rows.map((row) => [row.event, row.action_id])).toEqual([
      ['opened', null],
      ['received', null],
    ]);
    // Nothing about the caller is kept: the columns are the pair, the event, the action and the time.
    expect(Object.keys(rows[0]!).sort()).toEqual([
      'action_id',
      'created_at',
      'event',
      'notification_id',
      'subscriber_id',
    ]);
  });

  it('keeps receipts for CLARION_RECEIPT_RETENTION: past it their rows are pruned and late reports are expired', async () => {
    const { receipt, notificationId } = await sentReceipt(t);
    expect(expectSuccess(await post(t.app, '/api/v1/receipts', null, { receipt, event: 'opened' }), 202)).toEqual({
      result: 'counted',
    });
    const retention = t.config.receiptRetention;
    // An id's time is its ULID's: ids are monotonic per process, so it may be later than this file's clock says.
    const madeAt = decodeTime(notificationId.slice('ntf_'.length).toUpperCase());
    await pruneReceipts(t.store.db, madeAt + retention - 60_000, retention);
    expect(await receiptRows(t, notificationId)).toHaveLength(2);
    t.clock.advance(Math.max(0, madeAt + retention + 60_000 - t.clock.now()));
    expect(await pruneReceipts(t.store.db, t.clock.now(), retention)).toBeGreaterThanOrEqual(2);
    expect(await receiptRows(t, notificationId)).toEqual([]);
    // Without its earlier reports a late one could not be told from a repeat: it is not counted.
    expect(expectSuccess(await post(t.app, '/api/v1/receipts', null, { receipt, event: 'opened' }), 202)).toEqual({
      result: 'expired',
    });
    expect(await receiptRows(t, notificationId)).toEqual([]);
  });

  it('takes a batch of up to 100, answering each in order', async () => {
    const { receipt } = await sentReceipt(t);
    const receipts = [
      { receipt, event: 'action', actionId: 'reply' },
      { receipt: `${receipt.slice(0, -2)}zz`, event: 'opened' },
      ...Array.from({ length: 98 }, () => ({ receipt, event: 'dismissed' })),
    ];
    const answer = expectSuccess(await post(t.app, '/api/v1/receipts', null, { receipts }), 202);
    expect(answer.results).toEqual(['counted', 'invalid', 'counted', ...Array(97).fill('duplicate')]);
  });
});
