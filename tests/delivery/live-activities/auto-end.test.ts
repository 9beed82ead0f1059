import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { get, post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Staleness and auto-end (docs/live-activities.md, "Staleness and auto-end"), driven by the harness's clock: an
 * activity that hears nothing for its endAfterSecondsWithoutUpdate is ended with its last state and its endStatus,
 * on every platform; each update moves the deadline.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const seconds = (ms: number) => Math.floor(ms / 1000);

describe('Live Activity auto-end', () => {
  it('ends an activity that hears nothing for endAfterSecondsWithoutUpdate, each update moving the deadline', async () => {
    const account = await h.newAccount({ channels: ['builds'] });
    const android = await h.androidDevice(account, 'builds');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'builds',
      template: 'progress',
      fields: { title: 'Build 88', progress: 0.1, status: 'Compiling' },
      staleAfterSeconds: 120,
      endAfterSecondsWithoutUpdate: 600,
      endStatus: 'No word from the build',
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    expect(started.body.data).toMatchObject({
      staleAt: new Date(h.clock.now() + 120_000).toISOString(),
      endAfterSecondsWithoutUpdate: 600,
      endStatus: 'No word from the build',
    });
    await h.settle();

    // Nine minutes later an update: the activity lives on past the start's ten minutes.
    h.clock.advance(9 * 60_000);
    const updated = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
      fields: { progress: 0.5 },
    });
    expect(updated.statusCode).toBe(200);
    await h.settle();
    h.clock.advance(2 * 60_000);
    await h.settle();
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data.status).toBe('active');

    // Ten minutes after the update, nothing more: ended with its last state and the end status, on every platform.
    h.clock.advance(8 * 60_000);
    await h.settle();
    const ended = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data;
    expect(ended).toMatchObject({
      status: 'ended',
      endedAt: new Date(h.clock.now()).toISOString(),
      fields: { title: 'Build 88', progress: 0.5, status: 'No word from the build' },
      lastEvent: { event: 'end', status: 'done', delivered: 1 },
    });
    const messages = h.fcmPushes(android.token).map((request) => (request.message as any).data);
    expect(messages.map((data) => data.event)).toEqual(['start', 'update', 'end']);
    expect(JSON.parse(messages[2].fields)).toMatchObject({ status: 'No word from the build' });
    const events = (await listEvents(h.store.db, account.id)).filter((event) => event.type === 'live_activity.ended');
    expect(events.map((event) => (event.data as { reason: string }).reason)).toEqual(['inactive']);
    // The ending was not charged: the start and the update were.
    const usage = await h.store.db
      .selectFrom('usage_counters')
      .select('used')
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(Number(usage.used)).toBe(2);
  });

  it('ends a status activity with endStatus as its message, the status line that template has', async () => {
    const account = await h.newAccount({ channels: ['ops'] });
    const android = await h.androidDevice(account, 'ops');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'ops',
      template: 'status',
      fields: { title: 'db-2', state: 'error', message: 'Disk full' },
      endAfterSecondsWithoutUpdate: 300,
      endStatus: 'No word from the monitor',
    });
    expect(started.statusCode, JSON.stringify(started.body)).toBe(201);
    const id = started.body.data.id as string;
    await h.settle();

    h.clock.advance(300_000);
    await h.settle();
    const ended = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data;
    expect(ended).toMatchObject({ status: 'ended', lastEvent: { event: 'end', status: 'done', delivered: 1 } });
    // `message` carries it; no `status` field appears, which the template would refuse.
    expect(ended.fields).toEqual({ title: 'db-2', state: 'error', message: 'No word from the monitor' });
    const messages = h.fcmPushes(android.token).map((request) => (request.message as any).data);
    expect(messages.map((data) => data.event)).toEqual(['start', 'end']);
    expect(JSON.parse(messages[1].fields)).toEqual(ended.fields);
  });

  it("refuses an endStatus longer than a status activity's message takes (400), naming endStatus", async () => {
    const account = await h.newAccount({ channels: ['ops'] });
    const response = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'ops',
      template: 'status',
      fields: { title: 'db-2', state: 'warning' },
      endAfterSecondsWithoutUpdate: 60,
      endStatus: 'x'.repeat(201),
    });
    expect(response.statusCode).toBe(400);
    expect(response.body.error.details.fields).toEqual([
      { field: 'endStatus', message: 'message is at most 200 characters' },
    ]);
    const rows = await h.store.db
      .selectFrom('live_activities')
      .select('id')
      .where('account_id', '=', account.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('leaves an activity the caller ended alone, and stale dates ride each content', async () => {
    const account = await h.newAccount({ channels: ['builds'] });
    const ios = await h.iosDevice(account, 'builds', { osVersion: '17.5' });
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'builds',
        template: 'progress',
        fields: { title: 'Build 89', progress: 0.1 },
        staleAfterSeconds: 300,
        endAfterSecondsWithoutUpdate: 60,
      })
    ).body.data.id as string;
    const startedAt = h.clock.now();
    await h.settle();
    expect(await h.deviceActivity(ios, id)).toMatchObject({ staleDate: seconds(startedAt + 300_000) });
    const end = await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, {
      fields: { status: 'Passed' },
    });
    expect(end.statusCode).toBe(200);
    h.clock.advance(120_000);
    await h.settle();
    const events = (await listEvents(h.store.db, account.id)).filter((event) => event.type === 'live_activity.ended');
    expect(events.map((event) => (event.data as { reason: string }).reason)).toEqual(['requested']);
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data.fields.status).toBe(
      'Passed',
    );
  });

  it.each([
    [
      'staleAt and staleAfterSeconds together',
      { staleAt: '2099-01-01T00:00:00Z', staleAfterSeconds: 60 },
      'staleAfterSeconds',
    ],
    ['endStatus without endAfterSecondsWithoutUpdate', { endStatus: 'Gone' }, 'endStatus'],
    [
      'endAfterSecondsWithoutUpdate under a minute',
      { endAfterSecondsWithoutUpdate: 59 },
      'endAfterSecondsWithoutUpdate',
    ],
    [
      'an endStatus longer than the template takes',
      { endAfterSecondsWithoutUpdate: 60, endStatus: 'x'.repeat(500) },
      'endStatus',
    ],
  ])('refuses %s (400) and starts nothing', async (_name, extra, field) => {
    const account = await h.newAccount({ channels: ['builds'] });
    const response = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'builds',
      template: 'progress',
      fields: { title: 'Build', progress: 0.1 },
      ...extra,
    });
    expect(response.statusCode).toBe(400);
    expect(response.body.error.details.fields.map((problem: { field: string }) => problem.field)).toContain(field);
    const rows = await h.store.db
      .selectFrom('live_activities')
      .select('id')
      .where('account_id', '=', account.id)
      .execute();
    expect(rows).toEqual([]);
  });
});
