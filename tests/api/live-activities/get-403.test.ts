import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/live-activities/{id} → 403 forbidden', () => {
  it('forbids a publishable key to read an activity', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectError(await get(t.app, activityPath(id), account.publishableKey), 'forbidden');
  });
});
