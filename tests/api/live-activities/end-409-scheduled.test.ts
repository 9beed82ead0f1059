import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, activityToken, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { subscribeDevice } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/**
 * A scheduled activity has not started: an end or a token report is refused with a pointer to cancel; a canceled one
 * takes nothing more.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const later = () => new Date(t.clock.now() + 3600_000).toISOString();

describe('a scheduled activity → 409 activity_not_started', () => {
  it('refuses an end, pointing to cancel, and changes or charges nothing', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const sendAt = later();
    const id = await startActivity(t.app, account.secretKey, 'orders', { sendAt });
    const before = await accountState(t, account.id);
    const error = expectError(
      await post(t.app, activityPath(id, 'end'), account.secretKey, { fields: { progress: 1 } }),
      'activity_not_started',
    );
    expect(error.details).toEqual({ liveActivityId: id, sendAt });
    expect(error.message).toContain(`POST /api/v1/live-activities/${id}/cancel`);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('refuses a token report: no device can have one before the start', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const { id: subscriberId, token: deviceToken } = await subscribeDevice(
      t.app,
      account.publishableKey,
      'orders',
      'ios',
    );
    const id = await startActivity(t.app, account.secretKey, 'orders', { sendAt: later() });
    expectError(
      await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
        subscriberId,
        token: activityToken(),
        deviceToken,
      }),
      'activity_not_started',
    );
  });

  it('answers activity_ended to an update of a canceled one', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', { sendAt: later() });
    expectSuccess(await post(t.app, activityPath(id, 'cancel'), account.secretKey), 200);
    const error = expectError(
      await post(t.app, activityPath(id, 'update'), account.secretKey, { fields: { progress: 0.5 } }),
      'activity_ended',
    );
    expect(error.details).toEqual({ liveActivityId: id, endedAt: null, status: 'canceled' });
  });
});
