import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountPlan } from '../../../src/store/accounts-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const usage = async (key: string) => expectSuccess(await get(t.app, '/api/v1/usage', key), 200);

describe('GET /api/v1/usage → 200', () => {
  it.each([
    ['free', 250],
    ['starter', 2_500],
    ['pro', 10_000],
    ['business', 50_000],
  ] as const)('shows the %s plan quota of %i for a new account, for this UTC calendar month', async (plan, limit) => {
    const account = await t.newAccount({ plan });
    const response = await get(t.app, '/api/v1/usage', account.secretKey);
    const now = new Date(t.clock.now());
    expect(expectSuccess(response, 200)).toMatchObject({
      plan,
      limit,
      used: 0,
      remaining: limit,
      periodStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    });
    expect(response.headers['x-quota-limit']).toBe(String(limit));
    expect(response.headers['x-quota-remaining']).toBe(String(limit));
  });

  it("shows the operator's override of the plan limit", async () => {
    const account = await t.newAccount({ plan: 'free', limit: 1_000 });
    expect(await usage(account.secretKey)).toMatchObject({ plan: 'free', limit: 1_000, remaining: 1_000 });
  });

  it('counts accepted notifications and Live Activity starts', async () => {
    const account = await t.newAccount({ channels: ['news'], plan: 'starter' });
    await send(t.app, account.secretKey, 'news');
    await send(t.app, account.secretKey, 'news', { sendAt: new Date(t.clock.now() + 60_000).toISOString() });
    expect((await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('news'))).statusCode).toBe(
      201,
    );
    expect(await usage(account.secretKey)).toMatchObject({ used: 3, remaining: 2_497 });
  });

  it('shows the same usage to every secret key of the account, and none of another account', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await send(t.app, account.secretKey, 'news');
    const second = await account.key({ channels: ['news'] });
    expect((await usage(second.value)).used).toBe(1);
    const other = await t.newAccount();
    expect((await usage(other.secretKey)).used).toBe(0);
  });

  it('reports remaining 0 (never negative) when the operator lowers the limit below what was used', async () => {
    const account = await t.newAccount({ channels: ['news'], limit: 3 });
    for (let i = 0; i < 3; i += 1) await send(t.app, account.secretKey, 'news');
    await setAccountPlan(t.store.db, account.id, 'business', 1);
    expect(await usage(account.secretKey)).toMatchObject({ limit: 1, used: 3, remaining: 0 });
  });
});
