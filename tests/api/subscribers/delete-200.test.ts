import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { del } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/subscribers/:id → 200', () => {
  it('unsubscribes like POST /unsubscribe, with its event, and is idempotent', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'ios');
    const data = expectSuccess(await del(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200);
    expect(data).toMatchObject({ id, status: 'unsubscribed', unsubscribeReason: 'requested' });
    expect(expectSuccess(await del(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200)).toEqual(data);
    const events = (await listEvents(t.store.db, account.id)).filter(
      (event) => event.type === 'subscriber.unsubscribed',
    );
    expect(events.map((event) => event.data)).toEqual([
      { subscriberId: id, channelCode: 'news', platform: 'ios', reason: 'requested' },
    ]);
  });
});
