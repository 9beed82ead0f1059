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

const stored = async (id: string) =>
  t.store.db.selectFrom('live_activity_tokens').selectAll().where('live_activity_id', '=', id).execute();

/**
 * A publishable key reports a Live Activity token only for the device whose registration token it sends as
 * `deviceToken` (docs/live-activities.md): the key is public, and a token reported for another subscriber would send
 * that subscriber's updates to the reporter's activity.
 */
describe('POST /api/v1/live-activities/{id}/tokens → 403 forbidden', () => {
  it('refuses a publishable key without deviceToken, and stores nothing', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const device = await subscribeDevice(t.app, account.publishableKey, 'orders', 'ios');
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const error = expectError(
      await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
        subscriberId: device.id,
        token: activityToken(),
      }),
      'forbidden',
    );
    expect(error.message).toMatch(/deviceToken/);
    expect(await stored(id)).toEqual([]);
  });
});
