import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications/{id}/cancel → 404', () => {
  it.each(['ntf_01jzzzzzzzzzzzzzzzzzzzzzzz', 'not-an-id'])('answers not_found for %s', async (id) => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await post(t.app, `/api/v1/notifications/${id}/cancel`, account.secretKey);
    expect(response.statusCode).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  it("answers not_found for another account's notification, and leaves it scheduled", async () => {
    const owner = await t.newAccount({ channels: ['news'] });
    const other = await t.newAccount({ channels: ['news'] });
    const sent = await post(t.app, '/api/v1/notifications', owner.secretKey, {
      channelCode: 'news',
      title: 'Mine',
      sendAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    const response = await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, other.secretKey);
    expect(response.statusCode).toBe(404);
    expect((await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, owner.secretKey)).statusCode).toBe(
      200,
    );
  });

  it('answers not_found for a notification in a channel outside the key scope', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ channels: ['sport'] });
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Mine',
      sendAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    expect((await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, scoped.value)).statusCode).toBe(404);
  });
});
