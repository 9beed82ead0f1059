import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
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

describe('POST /api/v1/live-activities/{id}/tokens → 400 validation_failed', () => {
  it.each<[string, (subscriberId: string, deviceToken: string) => unknown, string[]]>([
    [
      'a token that is not hex',
      (subscriberId, deviceToken) => ({ subscriberId, token: 'not-a-token', deviceToken }),
      ['token'],
    ],
    ['a token too short', (subscriberId, deviceToken) => ({ subscriberId, token: 'abcd', deviceToken }), ['token']],
    ['no token', (subscriberId, deviceToken) => ({ subscriberId, deviceToken }), ['token']],
    ['no subscriberId', (_subscriberId, deviceToken) => ({ token: activityToken(), deviceToken }), ['subscriberId']],
    [
      'a token that is a number',
      (subscriberId, deviceToken) => ({ subscriberId, token: 1234, deviceToken }),
      ['token'],
    ],
    [
      'an unknown field',
      (subscriberId, deviceToken) => ({ subscriberId, token: activityToken(), deviceToken, platform: 'ios' }),
      ['platform'],
    ],
  ])('refuses %s, and stores nothing', async (_name, body, fields) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const { id: subscriberId, token: deviceToken } = await subscribeDevice(
      t.app,
      account.publishableKey,
      'orders',
      'ios',
    );
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectValidation(
      await post(t.app, activityPath(id, 'tokens'), account.publishableKey, body(subscriberId, deviceToken)),
      fields,
    );
    expect(await stored(id)).toEqual([]);
  });

  it('refuses a token for an Android subscriber: only iOS has per-activity tokens', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const { id: subscriberId, token: deviceToken } = await subscribeDevice(
      t.app,
      account.publishableKey,
      'orders',
      'android',
    );
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const problems = expectValidation(
      await post(t.app, activityPath(id, 'tokens'), account.publishableKey, {
        subscriberId,
        token: activityToken(),
        deviceToken,
      }),
      ['subscriberId'],
    );
    expect(problems[0]!.message).toBe('only iOS subscribers have Live Activity tokens');
    expect(await stored(id)).toEqual([]);
  });
});
