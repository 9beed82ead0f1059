import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications/{id}/cancel → 200', () => {
  it('cancels a scheduled notification, removes its dispatch job and refunds the quota unit', async () => {
    const account = await t.newAccount({ channels: ['news'], limit: 5 });
    const sendAt = new Date(t.clock.now() + 3_600_000).toISOString();
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Later',
      sendAt,
    });
    expect(sent.headers['x-quota-remaining']).toBe('4');
    const response = await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey);
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({
      success: true,
      data: { id: sent.body.data.id, status: 'canceled', canceledAt: expect.any(String), sendAt },
    });
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data).toMatchObject({ used: 0, remaining: 5 });
    const jobs = await t.store.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'notification.dispatch')
      .execute();
    expect(jobs.filter((job) => JSON.parse(job.payload).notificationId === sent.body.data.id)).toEqual([]);
    expect((await get(t.app, `/api/v1/notifications/${sent.body.data.id}`, account.secretKey)).body.data.status).toBe(
      'canceled',
    );
  });

  it('cancels a local-time notification before any zone is due', async () => {
    const account = await t.newAccount({ channels: ['local'] });
    for (const [n, timezone] of [
      [1, 'Europe/Paris'],
      [2, 'America/Chicago'],
    ] as const) {
      await post(t.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'local',
        platform: 'android',
        token: `tok-${n}`,
        timezone,
      });
    }
    const sendAt = new Date(t.clock.now() + 2 * 86_400_000).toISOString();
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'local',
      title: 'Hi',
      deliverAtLocalTime: '07:30',
      sendAt,
    });
    expect(sent.body.data.status).toBe('scheduled');
    const response = await post(t.app, `/api/v1/notifications/${sent.body.data.id}/cancel`, account.secretKey);
    expect(response.statusCode).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'canceled', stats: { delivered: 0, failed: 0, pending: 0 } });
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);
  });
});
