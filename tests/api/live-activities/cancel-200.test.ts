import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const later = () => new Date(t.clock.now() + 3600_000).toISOString();

describe('POST /api/v1/live-activities/{id}/cancel → 200', () => {
  it('cancels a scheduled activity: status canceled, its start job gone, its quota unit refunded', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const sendAt = later();
    const id = await startActivity(t.app, account.secretKey, 'orders', { sendAt });
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
    t.clock.advance(1000);
    const canceled = expectSuccess(await post(t.app, activityPath(id, 'cancel'), account.secretKey), 200);
    expect(canceled).toMatchObject({
      id,
      status: 'canceled',
      sendAt,
      startedAt: null,
      endedAt: null,
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200)).toEqual(canceled);
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);
    const jobs = await t.store.db
      .selectFrom('jobs')
      .select('id')
      .where('unique_key', '=', `live_activity.start:${id}`)
      .execute();
    expect(jobs).toEqual([]);
  });

  it('frees the stream key: the next call of the stream starts a new activity', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const path = '/api/v1/live-activities/streams/order-77';
    const first = expectSuccess(
      await post(t.app, path, account.secretKey, { ...progressActivity('orders'), sendAt: later() }),
      201,
    );
    expect(first).toMatchObject({ event: 'started', status: 'scheduled', streamKey: 'order-77' });
    expectSuccess(await post(t.app, activityPath(first.id, 'cancel'), account.secretKey), 200);
    const next = expectSuccess(await post(t.app, path, account.secretKey, progressActivity('orders')), 201);
    expect(next).toMatchObject({ event: 'started', status: 'active', streamKey: 'order-77' });
    expect(next.id).not.toBe(first.id);
  });
});
