import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities/{id}/update → 429 quota_exceeded', () => {
  it('counts the start and each update, and refuses the one over the limit without changing the activity', async () => {
    const account = await t.newAccount({ channels: ['orders'], plan: 'free', limit: 2 });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const first = await post(t.app, activityPath(id, 'update'), account.secretKey, { fields: { progress: 0.5 } });
    expectSuccess(first, 200);
    expect(first.headers['x-quota-remaining']).toBe('0');
    const before = await accountState(t, account.id);
    const jobs = async () =>
      (await t.store.db.selectFrom('jobs').select('id').where('unique_key', 'like', `%:${id}:%`).execute()).length;
    const jobsBefore = await jobs();
    const activityBefore = (await get(t.app, activityPath(id), account.secretKey)).body.data;
    const response = await post(t.app, activityPath(id, 'update'), account.secretKey, { fields: { progress: 0.9 } });
    expect(expectError(response, 'quota_exceeded').details).toMatchObject({ plan: 'free', limit: 2, used: 2 });
    expect(await accountState(t, account.id)).toEqual(before);
    expect((await get(t.app, activityPath(id), account.secretKey)).body.data).toEqual(activityBefore);
    expect(await jobs()).toBe(jobsBefore);
  });
});
