import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClarionApiError, createClarionClient, type ClarionClient } from '../../packages/client/src/index.ts';
import { forgedReceipt, receiptRows, sentReceipt } from '../api/receipts/receipts-fixture.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';

/**
 * The typed client's receipt calls against the app in-process: its fetch hands each request to Fastify's inject, so
 * what is checked is the client's request and its reading of the answer.
 */
let t: TestApp;
let client: ClarionClient;
beforeAll(async () => {
  t = await startTestApp();
  client = createClarionClient({
    baseUrl: 'http://clarion.test',
    apiKey: 'clr_sk_unused',
    retry: { maxRetries: 0 },
    fetch: async (request) => {
      const answer = await t.app.inject({
        method: request.method as 'POST',
        url: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        payload: await request.text(),
      });
      return new Response(answer.body, {
        status: answer.statusCode,
        headers: answer.headers as Record<string, string>,
      });
    },
  });
});
afterAll(async () => t.close());

describe('the typed client reports receipts', () => {
  it('one at a time: counted, then duplicate; a forged one throws invalid_receipt and counts nothing', async () => {
    const { receipt, notificationId } = await sentReceipt(t);
    expect(await client.sendReceipt({ receipt, event: 'opened' })).toBe('counted');
    expect(await client.sendReceipt({ receipt, event: 'opened' })).toBe('duplicate');
    const rows = await receiptRows(t, notificationId);
    const forged = forgedReceipt(receipt);
    const failure = await client.sendReceipt({ receipt: forged, event: 'dismissed' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClarionApiError);
    expect(failure).toMatchObject({ status: 400, code: 'invalid_receipt' });
    expect(await receiptRows(t, notificationId)).toEqual(rows);
  });

  it('as a batch: one result per report, in order, invalid for a receipt Clarion did not make', async () => {
    const { receipt } = await sentReceipt(t);
    expect(
      await client.sendReceipts([
        { receipt, event: 'received' },
        { receipt, event: 'action', actionId: 'approve' },
        { receipt: 'n'.repeat(75), event: 'opened' },
        { receipt, event: 'received' },
      ]),
    ).toEqual(['counted', 'counted', 'invalid', 'duplicate']);
  });
});
