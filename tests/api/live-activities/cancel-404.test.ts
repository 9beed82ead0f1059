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

const later = () => new Date(t.clock.now() + 60_000).toISOString();

describe('POST /api/v1/live-activities/{id}/cancel → 404 not_found', () => {
  it.each(['lva_01jzzzzzzzzzzzzzzzzzzzzzzz', 'not-an-id'])('answers not_found for %s', async (id) => {
    const account = await t.newAccount({ channels: ['orders'] });
    expectError(await post(t.app, activityPath(id, 'cancel'), account.secretKey), 'not_found');
  });

  it("answers not_found for another account's activity, and leaves it scheduled", async () => {
    const owner = await t.newAccount({ channels: ['orders'] });
    const other = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, owner.secretKey, 'orders', { sendAt: later() });
    const before = await accountState(t, owner.id);
    expectError(await post(t.app, activityPath(id, 'cancel'), other.secretKey), 'not_found');
    expect(await accountState(t, owner.id)).toEqual(before);
  });

  it('answers not_found to a key scoped to other channels, as for every read of an activity by id', async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const scoped = await account.key({ channels: ['sport'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', { sendAt: later() });
    const before = await accountState(t, account.id);
    expectError(await post(t.app, activityPath(id, 'cancel'), scoped.value), 'not_found');
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
