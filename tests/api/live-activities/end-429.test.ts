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

describe('POST /api/v1/live-activities/{id}/end → 429 quota_exceeded', () => {
  it('refuses an end once the start has spent the quota, and the activity stays active', async () => {
    const account = await t.newAccount({ channels: ['orders'], plan: 'free', limit: 1 });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const before = await accountState(t, account.id);
    const response = await post(t.app, activityPath(id, 'end'), account.secretKey, { fields: { progress: 1 } });
    expect(expectError(response, 'quota_exceeded').details).toMatchObject({ plan: 'free', limit: 1, used: 1 });
    expect(await accountState(t, account.id)).toEqual(before);
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200)).toMatchObject({
      status: 'active',
      endedAt: null,
      fields: { progress: 0.45 },
    });
  });
});
