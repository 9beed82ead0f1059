import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { activityPath, activityToken, startActivity } from '../../harness/live-activity-requests.ts';
import { post } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const stored = (id: string) => t.store.db.selectFrom('live_activity_tokens').selectAll().where('live_activity_id', '=', id).execute();

describe('POST /api/v1/live-activities/{id}/tokens → 400 validation_failed', () => {
  it.each<[string, (subscriberId: string) => unknown, string[]]>([
    ['a token that is not hex', (subscriberId) => ({ subscriberId, token: 'not-a-token' }), ['token']],
    ['a token too short', (subscriberId) => ({ subscriberId, token: 'abcd' }), ['token']],
    ['no token', (subscriberId) => ({ subscriberId }), ['token']],
    ['no subscriberId', () => ({ token: activityToken() }), ['subscriberId']],
    ['a token that is a number', (subscriberId) => ({ subscriberId, token: 1234 }), ['token']],
    ['an unknown field', (subscriberId) => ({ subscriberId, token: activityToken(), platform: 'ios' }), ['platform']],
  ])('refuses %s, and stores nothing', async (_name, body, fields) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const subscriberId = await subscribe(t.app, account.publishableKey, 'orders', 'ios');
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectValidation(await post(t.app, activityPath(id, 'tokens'), account.publishableKey, body(subscriberId)), fields);
    expect(await stored(id)).toEqual([]);
  });

  it('refuses a token for an Android subscriber: only iOS has per-activity tokens', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const subscriberId = await subscribe(t.app, account.publishableKey, 'orders', 'android');
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const problems = expectValidation(await post(t.app, activityPath(id, 'tokens'), account.publishableKey, { subscriberId, token: activityToken() }), ['subscriberId']);
    expect(problems[0]!.message).toBe('only iOS subscribers have Live Activity tokens');
    expect(await stored(id)).toEqual([]);
  });
});
