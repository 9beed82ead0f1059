import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { activityPath, activityToken, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { subscribeDevice, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const stored = async (id: string) =>
  (await t.store.db.selectFrom('live_activity_tokens').select('token').where('live_activity_id', '=', id).execute())
    .length;

describe('POST /api/v1/live-activities/{id}/tokens → 404 not_found', () => {
  it("answers not_found to a publishable key with another device's deviceToken, and stores nothing", async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const device = await subscribeDevice(t.app, account.publishableKey, 'orders', 'ios');
    const id = await startActivity(t.app, account.secretKey, 'orders');
    for (const deviceToken of [tokens.ios(), device.token.toUpperCase().slice(2), 'not-a-token']) {
      const error = expectError(
        await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
          subscriberId: device.id,
          token: activityToken(),
          deviceToken,
        }),
        'not_found',
      );
      expect(error.details).toEqual({ subscriberId: device.id });
    }
    expect(await stored(id)).toBe(0);
  });

  it('answers not_found for an unknown or malformed activity id', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const { id: subscriberId, token: deviceToken } = await subscribeDevice(
      t.app,
      account.publishableKey,
      'orders',
      'ios',
    );
    for (const id of [newId('liveActivity'), 'lva_x']) {
      expectError(
        await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
          subscriberId,
          token: activityToken(),
          deviceToken,
        }),
        'not_found',
      );
    }
  });

  it("answers not_found for another account's activity, even with a subscriber of that account", async () => {
    const owner = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, owner.secretKey, 'orders');
    const theirs = await subscribeDevice(t.app, owner.publishableKey, 'orders', 'ios');
    const other = await t.newAccount({ channels: ['orders'] });
    const before = await stored(id);
    expectError(
      await post(t.app, activityPath(id, 'tokens'), other.publishableKey, {
        subscriberId: theirs.id,
        token: activityToken(),
        deviceToken: theirs.token,
      }),
      'not_found',
    );
    expect(await stored(id)).toBe(before);
  });

  it.each([
    ['an unknown subscriber', async () => ({ id: newId('subscriber'), token: tokens.ios() })],
    ['a subscriber of another channel', async (key: string) => subscribeDevice(t.app, key, 'sport', 'ios')],
    [
      'an unsubscribed subscriber',
      async (key: string) => {
        const device = await subscribeDevice(t.app, key, 'orders', 'ios');
        await post(t.app, `/api/v1/subscribers/${device.id}/unsubscribe`, key, { token: device.token });
        return device;
      },
    ],
  ])('answers not_found for %s', async (_name, makeSubscriber) => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const device = await makeSubscriber(account.publishableKey);
    const subscriberId = device.id;
    const before = await stored(id);
    const error = expectError(
      await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
        subscriberId,
        token: activityToken(),
        deviceToken: device.token,
      }),
      'not_found',
    );
    expect(error.details).toEqual({ subscriberId });
    expect(await stored(id)).toBe(before);
  });

  it('answers not_found to a publishable key whose scope leaves out the activity channel', async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const id = await startActivity(t.app, account.secretKey, 'sport');
    const device = await subscribeDevice(t.app, account.publishableKey, 'sport', 'ios');
    const scoped = await account.key({ kind: 'publishable', channels: ['orders'] });
    expectError(
      await post(t.app, activityPath(id, 'tokens'), scoped.value, {
        subscriberId: device.id,
        token: activityToken(),
        deviceToken: device.token,
      }),
      'not_found',
    );
  });
});
