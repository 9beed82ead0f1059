import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities/{id}/end → 403 forbidden', () => {
  it('forbids a publishable key to end an activity, and changes nothing', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const before = await accountState(t, account.id);
    expectError(
      await post(t.app, activityPath(id, 'end'), account.publishableKey, { fields: { progress: 0.9 } }),
      'forbidden',
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
