import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { rawRequest } from '../../harness/api-routes.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities/{id}/end → 400', () => {
  it.each<[string, () => unknown, string[]]>([
    ['final fields out of range', () => ({ fields: { progress: 100 } }), ['fields.progress']],
    ['final fields removing a required one', () => ({ fields: { title: null } }), ['fields.title']],
    [
      'a dismissAt more than 4 hours ahead',
      () => ({ dismissAt: new Date(t.clock.now() + 4 * 3600_000 + 1000).toISOString() }),
      ['dismissAt'],
    ],
    ['a dismissAt that is not a date', () => ({ dismissAt: 'tonight' }), ['dismissAt']],
    ['a dismissAt without offset', () => ({ dismissAt: '2026-01-15T12:00:00' }), ['dismissAt']],
    ['an alert without title', () => ({ alert: { sound: 'default' } }), ['alert.title']],
    ['an empty sound', () => ({ alert: { title: 'Bye', sound: '' } }), ['alert.sound']],
    ['a priority that is neither high nor low', () => ({ priority: 10 }), ['priority']],
    ['a staleAt (an end carries none)', () => ({ staleAt: new Date(t.clock.now() + 1000).toISOString() }), ['staleAt']],
  ])('refuses %s, naming the field, and keeps the activity active and unchanged', async (_name, body, fields) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const before = await accountState(t, account.id);
    const activityBefore = (await get(t.app, activityPath(id), account.secretKey)).body.data;
    expectValidation(await post(t.app, activityPath(id, 'end'), account.secretKey, body()), fields);
    expect(await accountState(t, account.id)).toEqual(before);
    expect((await get(t.app, activityPath(id), account.secretKey)).body.data).toEqual(activityBefore);
  });

  it('takes an end without any body as invalid JSON (send {} to end as it is)', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectError(
      await rawRequest(t.app, 'POST', activityPath(id, 'end'), account.secretKey, '', {
        'content-type': 'application/json',
      }),
      'invalid_json',
    );
    expect((await get(t.app, activityPath(id), account.secretKey)).body.data.status).toBe('active');
  });
});
