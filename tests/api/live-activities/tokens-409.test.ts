import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { activityPath, activityToken, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { subscribeDevice } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const stored = (id: string) =>
  t.store.db.selectFrom('live_activity_tokens').selectAll().where('live_activity_id', '=', id).execute();

describe('POST /api/v1/live-activities/{id}/tokens → 409 activity_ended', () => {
  it('refuses a token for an ended activity: nothing will be sent to it any more', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const { id: subscriberId, token: deviceToken } = await subscribeDevice(
      t.app,
      account.publishableKey,
      'orders',
      'ios',
    );
    const id = await startActivity(t.app, account.secretKey, 'orders');
    await post(t.app, activityPath(id, 'end'), account.secretKey, {});
    expectError(
      await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
        subscriberId,
        token: activityToken(),
        deviceToken,
      }),
      'activity_ended',
    );
    expect(await stored(id)).toEqual([]);
  });

  it('refuses one 8 hours after the start', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const { id: subscriberId, token: deviceToken } = await subscribeDevice(
      t.app,
      account.publishableKey,
      'orders',
      'ios',
    );
    const id = await startActivity(t.app, account.secretKey, 'orders');
    t.clock.advance(8 * 3600 * 1000);
    expectError(
      await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
        subscriberId,
        token: activityToken(),
        deviceToken,
      }),
      'activity_ended',
    );
    expect(await stored(id)).toEqual([]);
  });
});
