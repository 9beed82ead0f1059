import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/live-activities/{id} → 200', () => {
  it('returns the LiveActivity as the start returned it', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    await subscribe(t.app, account.publishableKey, 'orders', 'ios', { pushToStartToken: tokens.ios() });
    const started = expectSuccess(
      await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('orders')),
      201,
    );
    expect(expectSuccess(await get(t.app, activityPath(started.id), account.secretKey), 200)).toEqual({
      ...started,
      recipientCount: 1,
    });
  });

  it('shows the activity ended 8 hours after its start, with endedAt at that moment, before any job recorded it', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const startedAt = t.clock.now();
    const id = await startActivity(t.app, account.secretKey, 'orders');
    t.clock.advance(8 * 3600 * 1000 - 1);
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200)).toMatchObject({
      status: 'active',
      endedAt: null,
    });
    t.clock.advance(1);
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200)).toMatchObject({
      status: 'ended',
      endedAt: new Date(startedAt + 8 * 3600 * 1000).toISOString(),
    });
  });

  it('is readable with a key scoped to the activity channel', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const scoped = await account.key({ channels: ['orders'] });
    expect(expectSuccess(await get(t.app, activityPath(id), scoped.value), 200).id).toBe(id);
  });
});
