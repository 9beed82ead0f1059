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

describe('POST /api/v1/live-activities/{id}/cancel → 403 / 401', () => {
  it('forbids a publishable key to cancel, and the activity stays scheduled', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', {
      sendAt: new Date(t.clock.now() + 60_000).toISOString(),
    });
    const before = await accountState(t, account.id);
    expectError(await post(t.app, activityPath(id, 'cancel'), account.publishableKey), 'forbidden');
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('refuses a request without a key', async () => {
    const response = await post(t.app, activityPath('lva_01jzzzzzzzzzzzzzzzzzzzzzzz', 'cancel'), null);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });
});
