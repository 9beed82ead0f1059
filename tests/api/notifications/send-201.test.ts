import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 201', () => {
  it('stores the notification as queued and returns the pinned fields', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await post(t.app, '/api/v1/subscribers', account.publishableKey, { channelCode: 'news', platform: 'android', token: 'fcm-token-1' });
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Hello',
      body: 'World',
      url: 'https://example.com/a',
    });
    expect(response.statusCode).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toMatchObject({ channelCode: 'news', title: 'Hello', recipientCount: 1, status: 'queued' });
    expect(response.body.data.id).toMatch(/^ntf_[0-9a-z]{26}$/);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });
});
