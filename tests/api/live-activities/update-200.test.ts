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

const update = (key: string, id: string, body: unknown) => post(t.app, activityPath(id, 'update'), key, body);

async function dispatches(id: string): Promise<LiveActivityDispatchPayload[]> {
  const jobs = await t.store.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', 'live_activity.dispatch')
    .where('unique_key', 'like', `%:${id}:%`)
    .orderBy('id')
    .execute();
  return jobs.map((job) => JSON.parse(job.payload) as LiveActivityDispatchPayload);
}

describe('POST /api/v1/live-activities/{id}/update → 200', () => {
  it('merges the fields into the current ones and returns the LiveActivity', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    t.clock.advance(5_000);
    const response = await update(account.secretKey, id, { fields: { progress: 0.8 } });
    const data = expectSuccess(response, 200);
    expect(data).toMatchObject({
      id,
      status: 'active',
      fields: { title: 'Order #42', progress: 0.8, status: 'Packing' },
      alert: { title: 'Your order', body: 'is being packed' },
      updatedAt: new Date(t.clock.now()).toISOString(),
      endedAt: null,
    });
    expect(response.headers['x-quota-remaining']).toBe('49998');
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200)).toEqual(data);
  });

  it.each<[string, string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    [
      'a score team by member',
      'score',
      { title: 'Match', home: { name: 'Ajax', score: 0 }, away: { name: 'PSV', score: 0 } },
      { home: { score: 1 } },
      { title: 'Match', home: { name: 'Ajax', score: 1 }, away: { name: 'PSV', score: 0 } },
    ],
    [
      'null removing an optional field',
      'progress',
      { title: 'Upload', progress: 0.1, status: 'Slow' },
      { status: null, progress: 0.2 },
      { title: 'Upload', progress: 0.2 },
    ],
    [
      'a step forward',
      'steps',
      { title: 'Ride', currentStep: 1, totalSteps: 3 },
      { currentStep: 2, status: 'Driver on the way' },
      { title: 'Ride', currentStep: 2, totalSteps: 3, status: 'Driver on the way' },
    ],
    ['nothing (empty fields)', 'progress', { title: 'Upload', progress: 0.1 }, {}, { title: 'Upload', progress: 0.1 }],
    [
      'a metrics list, replaced as a whole (fewer metrics than before)',
      'metrics',
      {
        title: 'api-1',
        metrics: [
          { label: 'CPU', value: 72, unit: '%', trend: 'up' },
          { label: 'Errors', value: 3 },
        ],
        status: 'Deploying',
      },
      { metrics: [{ label: 'CPU', value: 40, unit: '%', trend: 'down' }] },
      { title: 'api-1', metrics: [{ label: 'CPU', value: 40, unit: '%', trend: 'down' }], status: 'Deploying' },
    ],
    [
      'a status state and message',
      'status',
      { title: 'db-2', state: 'error', message: 'Disk full' },
      { state: 'ok', message: 'Space freed' },
      { title: 'db-2', state: 'ok', message: 'Space freed' },
    ],
    [
      'null clearing a status message',
      'status',
      { title: 'db-2', state: 'warning', message: 'Disk 91 %' },
      { message: null },
      { title: 'db-2', state: 'warning' },
    ],
  ])('merges %s', async (_name, template, fields, change, expected) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', { template, fields, alert: undefined });
    expect(expectSuccess(await update(account.secretKey, id, { fields: change }), 200).fields).toEqual(expected);
  });

  it('restarts a timer from a new durationSeconds, replacing its endsAt', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', {
      template: 'timer',
      fields: { title: 'Pizza', endsAt: '2099-01-01T00:00:00Z' },
    });
    t.clock.advance(60_000);
    const data = expectSuccess(await update(account.secretKey, id, { fields: { durationSeconds: 300 } }), 200);
    expect(data.fields).toEqual({ title: 'Pizza', endsAt: new Date(t.clock.now() + 300_000).toISOString() });
  });

  it('keeps the alert shown last, takes staleAt for this content only, and hands the event to delivery', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const staleAt = new Date(t.clock.now() + 600_000).toISOString();
    const id = await startActivity(t.app, account.secretKey, 'orders', { staleAt });
    const alerting = expectSuccess(
      await update(account.secretKey, id, { fields: { progress: 0.6 }, alert: { title: 'Halfway' }, staleAt }),
      200,
    );
    expect(alerting).toMatchObject({ alert: { title: 'Halfway' }, staleAt });
    const silent = expectSuccess(await update(account.secretKey, id, { fields: { progress: 0.7 } }), 200);
    expect(silent).toMatchObject({ alert: { title: 'Halfway' }, staleAt: null });

    const pushes = await dispatches(id);
    expect(pushes.map(({ push }) => [push.event, push.alert, push.staleAt, push.fields.progress])).toEqual([
      ['start', { title: 'Your order', body: 'is being packed' }, Date.parse(staleAt), 0.45],
      ['update', { title: 'Halfway' }, Date.parse(staleAt), 0.6],
      ['update', null, null, 0.7],
    ]);
    // Every event takes a later APNs timestamp, even within one second.
    const timestamps = pushes.map(({ push }) => push.timestamp);
    expect(timestamps).toEqual([timestamps[0], timestamps[0]! + 1, timestamps[0]! + 2]);
    expect(pushes.every(({ platforms }) => platforms.join() === 'ios,android,web')).toBe(true);
  });

  it('carries priority high/low and an alert sound to delivery (APNs 10/5 in apns-live-activity-payload.test.ts)', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', {
      alert: { title: 'Started', sound: 'default' },
    });
    expectSuccess(await update(account.secretKey, id, { fields: { progress: 0.5 }, priority: 'high' }), 200);
    const loud = expectSuccess(
      await update(account.secretKey, id, {
        fields: { progress: 0.6 },
        alert: { title: 'Halfway', sound: 'chime.aiff' },
        priority: 'low',
      }),
      200,
    );
    expect(loud.alert).toEqual({ title: 'Halfway', sound: 'chime.aiff' });
    expectSuccess(await update(account.secretKey, id, { fields: { progress: 0.7 } }), 200);
    const pushes = await dispatches(id);
    expect(pushes.map(({ push }) => [push.event, push.priority ?? null, push.alert])).toEqual([
      ['start', null, { title: 'Started', sound: 'default' }],
      ['update', 'high', null],
      ['update', 'low', { title: 'Halfway', sound: 'chime.aiff' }],
      ['update', null, null],
    ]);
  });

  it('records live_activity.updated with the merged fields and counts one unit of quota per update', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    await update(account.secretKey, id, { fields: { progress: 0.5 }, alert: { title: 'Halfway', body: 'Half done' } });
    await update(account.secretKey, id, { fields: { progress: 0.6 } });
    const events = (await listEvents(t.store.db, account.id)).filter((event) => event.type === 'live_activity.updated');
    expect(events.map((event) => event.data)).toEqual([
      {
        liveActivityId: id,
        channelCode: 'orders',
        template: 'progress',
        fields: { title: 'Order #42', progress: 0.5, status: 'Packing' },
        alert: { title: 'Halfway', body: 'Half done' },
        staleAt: null,
      },
      {
        liveActivityId: id,
        channelCode: 'orders',
        template: 'progress',
        fields: { title: 'Order #42', progress: 0.6, status: 'Packing' },
        alert: null,
        staleAt: null,
      },
    ]);
    expect(expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200).used).toBe(3);
  });

  it('lets a key scoped to the activity channel update it', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const scoped = await account.key({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectSuccess(await update(scoped.value, id, { fields: { progress: 0.9 } }), 200);
  });
});
