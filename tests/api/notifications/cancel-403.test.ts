import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications/{id}/cancel → 403 / 401', () => {
  it('refuses a publishable key with forbidden, and the notification stays scheduled', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Later',
      sendAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    const response = await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.publishableKey);
    expect(response.statusCode).toBe(403);
    expect(response.body.error.code).toBe('forbidden');
    expect((await get(t.app, `/api/v1/notifications/${sent.body.data.id}`, account.secretKey)).body.data.status).toBe(
      'scheduled',
    );
  });

  it('refuses a request without a key', async () => {
    const response = await post(t.app, '/api/v1/notifications/ntf_01jzzzzzzzzzzzzzzzzzzzzzzz/cancel', null);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });
});
