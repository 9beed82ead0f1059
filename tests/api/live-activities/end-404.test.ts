import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities/{id}/end → 404 not_found', () => {
  it.each([
    ['an unknown id', () => newId('liveActivity')],
    ['a malformed id', () => 'lva_nope'],
    ['a notification id', () => newId('notification')],
  ])('answers not_found for %s, and charges nothing', async (_name, id) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    expectError(
      await post(t.app, activityPath(id(), 'end'), account.secretKey, { fields: { progress: 0.5 } }),
      'not_found',
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it("answers not_found for another account's activity and leaves it alone", async () => {
    const owner = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, owner.secretKey, 'orders');
    const other = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, owner.id);
    expectError(
      await post(t.app, activityPath(id, 'end'), other.secretKey, { fields: { progress: 0.5 } }),
      'not_found',
    );
    expect(await accountState(t, owner.id)).toEqual(before);
    expect(await accountCounts(t, other.id)).toMatchObject({ quotaUsed: 0 });
  });

  it('answers not_found to a key whose scope leaves out the activity channel', async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const id = await startActivity(t.app, account.secretKey, 'sport');
    const scoped = await account.key({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    expectError(await post(t.app, activityPath(id, 'end'), scoped.value, { fields: { progress: 0.5 } }), 'not_found');
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
