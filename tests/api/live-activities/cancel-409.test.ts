import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities/{id}/cancel → 409 not_cancelable', () => {
  it('refuses an activity that started, pointing to its end, and changes or refunds nothing', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const before = await accountState(t, account.id);
    const error = expectError(await post(t.app, activityPath(id, 'cancel'), account.secretKey), 'not_cancelable');
    expect(error.details).toEqual({ status: 'active' });
    expect(error.message).toContain('/end');
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('refuses an activity that ended, by a call or after its 8 hours', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const ended = await startActivity(t.app, account.secretKey, 'orders');
    expectSuccess(await post(t.app, activityPath(ended, 'end'), account.secretKey, {}), 200);
    const expired = await startActivity(t.app, account.secretKey, 'orders');
    t.clock.advance(8 * 3600 * 1000);
    for (const id of [ended, expired])
      expect(
        expectError(await post(t.app, activityPath(id, 'cancel'), account.secretKey), 'not_cancelable').details,
      ).toEqual({ status: 'ended' });
  });

  it('refuses a second cancel, and refunds only once', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', {
      sendAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    expectSuccess(await post(t.app, activityPath(id, 'cancel'), account.secretKey), 200);
    const before = await accountState(t, account.id);
    const error = expectError(await post(t.app, activityPath(id, 'cancel'), account.secretKey), 'not_cancelable');
    expect(error.details).toEqual({ status: 'canceled' });
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
