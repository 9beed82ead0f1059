import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveActivityDispatchPayload } from '../../../src/delivery/live-activities/live-activity-jobs.ts';
import { listEvents } from '../../../src/store/events-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const end = (key: string, id: string, body: unknown = {}) => post(t.app, activityPath(id, 'end'), key, body);

describe('POST /api/v1/live-activities/{id}/end → 200', () => {
  it('ends the activity with its final fields and dismissal time', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    t.clock.advance(60_000);
    const dismissAt = new Date(t.clock.now() + 3600_000).toISOString();
    const response = await end(account.secretKey, id, { fields: { progress: 1, status: 'Delivered' }, dismissAt });
    const now = new Date(t.clock.now()).toISOString();
    const data = expectSuccess(response, 200);
    expect(data).toMatchObject({
      id,
      status: 'ended',
      fields: { title: 'Order #42', progress: 1, status: 'Delivered' },
      updatedAt: now,
      endedAt: now,
      dismissAt,
    });
    expect(response.headers['x-quota-remaining']).toBe('49998');
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200)).toEqual(data);
  });

  it('ends it as it is with an empty body object, and accepts a dismissAt in the past (dismiss at once)', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const asItIs = expectSuccess(await end(account.secretKey, id), 200);
    expect(asItIs).toMatchObject({
      status: 'ended',
      fields: { title: 'Order #42', progress: 0.45, status: 'Packing' },
      dismissAt: null,
    });

    const other = await startActivity(t.app, account.secretKey, 'orders');
    const past = new Date(t.clock.now() - 60_000).toISOString();
    expect(expectSuccess(await end(account.secretKey, other, { dismissAt: past }), 200).dismissAt).toBe(past);
  });

  it('records live_activity.ended, counts one unit, and hands the end to delivery for every platform', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const staleAt = new Date(t.clock.now() + 600_000).toISOString();
    const id = await startActivity(t.app, account.secretKey, 'orders', { staleAt, relevanceScore: 5 });
    const dismissAt = new Date(t.clock.now() + 1800_000).toISOString();
    expectSuccess(await end(account.secretKey, id, { fields: { progress: 1 }, dismissAt }), 200);

    const events = (await listEvents(t.store.db, account.id)).filter((event) => event.type === 'live_activity.ended');
    expect(events.map((event) => event.data)).toEqual([
      {
        liveActivityId: id,
        channelCode: 'orders',
        template: 'progress',
        fields: { title: 'Order #42', progress: 1, status: 'Packing' },
        reason: 'requested',
        endedAt: new Date(t.clock.now()).toISOString(),
        dismissAt,
      },
    ]);
    expect(expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200).used).toBe(2);

    const job = await t.store.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'live_activity.dispatch')
      .where('unique_key', 'like', `%:${id}:%`)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const { push, platforms } = JSON.parse(job.payload) as LiveActivityDispatchPayload;
    expect(platforms).toEqual(['ios', 'android', 'web']);
    expect(push).toMatchObject({
      event: 'end',
      alert: null,
      staleAt: null,
      dismissAt: Date.parse(dismissAt),
      relevanceScore: 5,
      fields: { progress: 1 },
    });
  });

  it('carries an alert with its sound and a low priority to delivery, and shows the alert as the latest one', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const data = expectSuccess(
      await end(account.secretKey, id, { alert: { title: 'Delivered', sound: 'chime.aiff' }, priority: 'low' }),
      200,
    );
    expect(data.alert).toEqual({ title: 'Delivered', sound: 'chime.aiff' });
    const job = await t.store.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'live_activity.dispatch')
      .where('unique_key', 'like', `%:${id}:%`)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect((JSON.parse(job.payload) as LiveActivityDispatchPayload).push).toMatchObject({
      event: 'end',
      alert: { title: 'Delivered', sound: 'chime.aiff' },
      priority: 'low',
    });
  });
});
