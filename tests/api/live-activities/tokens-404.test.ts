import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { activityPath, activityToken, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const stored = async (id: string) => (await t.store.db.selectFrom('live_activity_tokens').select('token').where('live_activity_id', '=', id).execute()).length;

describe('POST /api/v1/live-activities/{id}/tokens → 404 not_found', () => {
  it('answers not_found for an unknown or malformed activity id', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const subscriberId = await subscribe(t.app, account.publishableKey, 'orders', 'ios');
    for (const id of [newId('liveActivity'), 'lva_x']) {
      expectError(await post(t.app, activityPath(id, 'tokens'), account.publishableKey, { subscriberId, token: activityToken() }), 'not_found');
    }
  });

  it("answers not_found for another account's activity, even with a subscriber of that account", async () => {
    const owner = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, owner.secretKey, 'orders');
    const theirSubscriber = await subscribe(t.app, owner.publishableKey, 'orders', 'ios');
    const other = await t.newAccount({ channels: ['orders'] });
    const before = await stored(id);
    expectError(await post(t.app, activityPath(id, 'tokens'), other.publishableKey, { subscriberId: theirSubscriber, token: activityToken() }), 'not_found');
    expect(await stored(id)).toBe(before);
  });

  it.each([
    ['an unknown subscriber', async () => newId('subscriber')],
    ['a subscriber of another channel', async (key: string) => subscribe(t.app, key, 'sport', 'ios')],
    [
      'an unsubscribed subscriber',
      async (key: string) => {
        const id = await subscribe(t.app, key, 'orders', 'ios');
        await post(t.app, `/api/v1/subscribers/${id}/unsubscribe`, key);
        return id;
      },
    ],
  ])('answers not_found for %s', async (_name, makeSubscriber) => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const subscriberId = await makeSubscriber(account.publishableKey);
    const before = await stored(id);
    const error = expectError(await post(t.app, activityPath(id, 'tokens'), account.publishableKey, { subscriberId, token: activityToken() }), 'not_found');
    expect(error.details).toEqual({ subscriberId });
    expect(await stored(id)).toBe(before);
  });

  it('answers not_found to a publishable key whose scope leaves out the activity channel', async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const id = await startActivity(t.app, account.secretKey, 'sport');
    const subscriberId = await subscribe(t.app, account.publishableKey, 'sport', 'ios');
    const scoped = await account.key({ kind: 'publishable', channels: ['orders'] });
    expectError(await post(t.app, activityPath(id, 'tokens'), scoped.value, { subscriberId, token: activityToken() }), 'not_found');
  });
});
