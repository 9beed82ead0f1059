import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 400 for bad schedules', () => {
  it.each([
    [{ deliverAtLocalTime: '9:00' }, 'deliverAtLocalTime', 'must be a 24-hour local time like 09:00'],
    [{ deliverAtLocalTime: '24:00' }, 'deliverAtLocalTime', 'must be a 24-hour local time like 09:00'],
    [
      { sendAt: '2026-05-01T09:00:00' },
      'sendAt',
      'must be an ISO 8601 time with offset, like 2026-05-01T09:00:00+02:00',
    ],
  ])('refuses %j', async (schedule, field, message) => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Hi',
      ...schedule,
    });
    expect(response.statusCode).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details.fields).toContainEqual({ field, message });
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);
  });

  it('refuses a sendAt more than 365 days ahead', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sendAt = new Date(t.clock.now() + 366 * 86_400_000).toISOString();
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Hi',
      sendAt,
    });
    expect(response.statusCode).toBe(400);
    expect(response.body.error.details.fields).toEqual([{ field: 'sendAt', message: 'can be at most 365 days ahead' }]);
  });
});
