import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('quota race: concurrent requests for the last unit', () => {
  it('accepts exactly one of 20 parallel sends for the last unit; the others get quota_exceeded and nothing is stored for them', async () => {
    const limit = 5;
    const account = await t.newAccount({ channels: ['news'], plan: 'starter', limit });
    for (let i = 0; i < limit - 1; i += 1) await send(t.app, account.secretKey, 'news');

    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: `race ${i}` }),
      ),
    );
    const accepted = responses.filter((response) => response.statusCode === 201);
    expect(accepted).toHaveLength(1);
    for (const response of responses.filter((item) => item.statusCode !== 201)) {
      expect(expectError(response, 'quota_exceeded').details).toMatchObject({ plan: 'starter', limit, used: limit });
    }
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: limit, quotaUsed: limit });
    expect(expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200)).toMatchObject({
      used: limit,
      remaining: 0,
    });
    expect(expectSuccess(await get(t.app, '/api/v1/notifications?limit=100', account.secretKey), 200)).toHaveLength(
      limit,
    );
  });

  it('shares the last unit between notifications and Live Activity starts racing for it', async () => {
    const account = await t.newAccount({ channels: ['news'], limit: 1 });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: `n${i}` })
          : post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('news')),
      ),
    );
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 429)).toHaveLength(9);
    const state = await accountCounts(t, account.id);
    expect(state.notifications + state.live_activities).toBe(1);
    expect(state.quotaUsed).toBe(1);
  });
});
