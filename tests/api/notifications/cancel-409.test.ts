import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications/{id}/cancel → 409 not_cancelable', () => {
  it('refuses a notification sent at once (queued), and changes nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Now' });
    const response = await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey);
    expect(response.statusCode).toBe(409);
    expect(response.body.error).toMatchObject({ code: 'not_cancelable', details: { status: 'queued' } });
    expect((await get(t.app, `/api/v1/notifications/${sent.body.data.id}`, account.secretKey)).body.data.status).toBe(
      'queued',
    );
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
  });

  it('refuses a second cancel', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Later',
      sendAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    expect((await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey)).statusCode).toBe(
      200,
    );
    const again = await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey);
    expect(again.statusCode).toBe(409);
    expect(again.body.error.message).toBe('This notification is already canceled.');
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);
  });

  it('refuses once a worker has claimed the dispatch', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Soon',
      sendAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    t.clock.advance(60_000);
    // Claimed as the claim statement does it, but only this job: a claim by kind would also take other files' jobs
    // from the shared PostgreSQL database, and with over 100 of them waiting (tests never run their dispatches) this
    // one could be left out.
    const claimed = await t.store.db
      .updateTable('jobs')
      .set({
        state: 'running',
        attempt: 1,
        lease_owner: 'test-worker',
        lease_expires_at: t.clock.now() + 60_000,
        updated_at: t.clock.now(),
      })
      .where('unique_key', '=', `dispatch:${sent.body.data.id}:*`)
      .where('state', '=', 'available')
      .executeTakeFirst();
    expect(Number(claimed.numUpdatedRows)).toBe(1);
    const response = await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey);
    expect(response.statusCode).toBe(409);
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
  });
});
