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

describe('GET /api/v1/notifications/:id → 200', () => {
  it('returns the notification with its status and stats', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, account.publishableKey, 'news', 'web');
    await subscribe(t.app, account.publishableKey, 'news', 'ios');
    const sent = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      201,
    );
    const response = await get(t.app, `/api/v1/notifications/${sent.id}`, account.secretKey);
    expect(expectSuccess(response, 200)).toEqual(sent);
    expect(sent).toMatchObject({ status: 'queued', recipientCount: 2, stats: { delivered: 0, failed: 0, pending: 2 } });
  });

  it('shows a scheduled notification as scheduled, with its sendAt', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sendAt = new Date(t.clock.now() + 7_200_000).toISOString();
    const sent = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', body: 'Later', sendAt }),
      201,
    );
    expect(expectSuccess(await get(t.app, `/api/v1/notifications/${sent.id}`, account.secretKey), 200)).toMatchObject({
      status: 'scheduled',
      sendAt,
    });
  });

  it('is readable with a key scoped to the channel of the notification', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sent = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      201,
    );
    const scoped = await account.key({ channels: ['news'] });
    expect(expectSuccess(await get(t.app, `/api/v1/notifications/${sent.id}`, scoped.value), 200).id).toBe(sent.id);
  });
});
