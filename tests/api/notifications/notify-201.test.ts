import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notify → 201', () => {
  it('sends like POST /notifications, naming the channel `channel`; the Notification still says channelCode', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, account.publishableKey, 'news', 'ios');
    const response = await post(t.app, '/api/v1/notify', account.secretKey, {
      channel: 'news',
      title: 'Hello',
      body: 'World',
      url: 'https://example.com/a',
    });
    const data = expectSuccess(response, 201);
    expect(data).toMatchObject({
      channelCode: 'news',
      title: 'Hello',
      body: 'World',
      url: 'https://example.com/a',
      recipientCount: 1,
      status: 'queued',
    });
    expect(data.id).toMatch(/^ntf_[0-9a-z]{26}$/);
    expect(data).not.toHaveProperty('channel');
    expect(response.headers['x-quota-remaining']).toBe(String(50_000 - 1));
    expect(expectSuccess(await get(t.app, `/api/v1/notifications/${data.id}`, account.secretKey), 200)).toEqual(data);
  });

  it('returns the same shape as POST /notifications for the same content', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const content = { title: 'T', body: 'B', data: { a: 'b' }, priority: 'normal', ttlSeconds: 60 };
    const viaNotify = expectSuccess(
      await post(t.app, '/api/v1/notify', account.secretKey, { channel: 'news', ...content }),
      201,
    );
    const viaNotifications = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', ...content }),
      201,
    );
    const strip = ({ id: _id, ...rest }: Record<string, unknown>) => rest;
    expect(strip(viaNotify)).toEqual(strip(viaNotifications));
  });
});
