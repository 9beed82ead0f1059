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

describe('POST /api/v1/live-activities/{id}/end → 409 activity_ended', () => {
  it('refuses to end an activity twice, and changes or charges nothing', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const ended = expectSuccess(
      await post(t.app, activityPath(id, 'end'), account.secretKey, { fields: { progress: 1 } }),
      200,
    );
    t.clock.advance(1000);
    const before = await accountState(t, account.id);
    const error = expectError(
      await post(t.app, activityPath(id, 'end'), account.secretKey, { fields: { progress: 0.9 } }),
      'activity_ended',
    );
    expect(error.details).toEqual({ liveActivityId: id, endedAt: ended.endedAt });
    expect(await accountState(t, account.id)).toEqual(before);
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200)).toEqual(ended);
  });

  it('refuses an end 8 hours after the start, when iOS has already ended the activity', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const startedAt = t.clock.now();
    const id = await startActivity(t.app, account.secretKey, 'orders');
    t.clock.advance(8 * 3600 * 1000);
    const before = await accountState(t, account.id);
    const error = expectError(await post(t.app, activityPath(id, 'end'), account.secretKey, {}), 'activity_ended');
    expect(error.details).toEqual({ liveActivityId: id, endedAt: new Date(startedAt + 8 * 3600 * 1000).toISOString() });
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
