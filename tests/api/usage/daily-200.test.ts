import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/usage/daily → 200', () => {
  it('counts notifications per UTC day of this month up to today, zero days included, canceled ones left out', async () => {
    t.clock.set(Date.UTC(2026, 2, 1, 23, 59, 0));
    const account = await t.newAccount({ channels: ['news'] });
    await send(t.app, account.secretKey, 'news');
    t.clock.set(Date.UTC(2026, 2, 3, 0, 0, 0));
    await send(t.app, account.secretKey, 'news');
    await send(t.app, account.secretKey, 'news');
    const scheduled = await send(t.app, account.secretKey, 'news', {
      sendAt: new Date(Date.UTC(2026, 2, 10)).toISOString(),
    });
    await send(t.app, account.secretKey, 'news', { sendAt: new Date(Date.UTC(2026, 2, 11)).toISOString() });
    expect((await post(t.app, `/api/v1/notifications/${scheduled}/cancel`, account.secretKey)).statusCode).toBe(200);
    // Another account's sends are not ours.
    const other = await t.newAccount({ channels: ['news'] });
    await send(t.app, other.secretKey, 'news');

    t.clock.set(Date.UTC(2026, 2, 4, 12, 0, 0));
    const data = expectSuccess(await get(t.app, '/api/v1/usage/daily', account.secretKey), 200);
    expect(data).toEqual({
      periodStart: '2026-03-01T00:00:00.000Z',
      resetsAt: '2026-04-01T00:00:00.000Z',
      days: [
        { date: '2026-03-01', notifications: 1 },
        { date: '2026-03-02', notifications: 0 },
        { date: '2026-03-03', notifications: 3 },
        { date: '2026-03-04', notifications: 0 },
      ],
    });
  });

  it('starts again with the month', async () => {
    t.clock.set(Date.UTC(2026, 3, 30, 12, 0, 0));
    const account = await t.newAccount({ channels: ['news'] });
    await send(t.app, account.secretKey, 'news');
    t.clock.set(Date.UTC(2026, 4, 1, 0, 0, 1));
    const data = expectSuccess(await get(t.app, '/api/v1/usage/daily', account.secretKey), 200);
    expect(data.days).toEqual([{ date: '2026-05-01', notifications: 0 }]);
  });
});
