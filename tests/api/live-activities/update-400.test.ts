import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const team = (name: string, score: number) => ({ name, score });
const starts: Record<string, Record<string, unknown>> = {
  progress: {},
  score: { template: 'score', fields: { title: 'Match', home: team('Ajax', 0), away: team('PSV', 0) } },
  steps: { template: 'steps', fields: { title: 'Ride', currentStep: 2, totalSteps: 3 } },
  metrics: {
    template: 'metrics',
    fields: {
      title: 'api-1',
      metrics: [
        { label: 'CPU', value: 72, unit: '%' },
        { label: 'Errors', value: 3 },
      ],
    },
  },
  status: { template: 'status', fields: { title: 'db-2', state: 'error', message: 'Disk full' } },
};

describe('POST /api/v1/live-activities/{id}/update → 400 validation_failed', () => {
  it('explains that progress is a fraction, after merging', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const response = await post(t.app, activityPath(id, 'update'), account.secretKey, { fields: { progress: 45 } });
    expect(expectValidation(response, ['fields.progress'])).toEqual([
      { field: 'fields.progress', message: 'progress is a fraction from 0 to 1: send 0.45 for 45 %' },
    ]);
  });

  it.each<[string, keyof typeof starts, () => unknown, string[]]>([
    ['removing a required field', 'progress', () => ({ fields: { title: null } }), ['fields.title']],
    ['an unknown member of fields', 'progress', () => ({ fields: { colour: 'red' } }), ['fields.colour']],
    ['a field of another template', 'progress', () => ({ fields: { currentStep: 2 } }), ['fields.currentStep']],
    ['a score going negative', 'score', () => ({ fields: { away: { score: -1 } } }), ['fields.away.score']],
    ['removing a team name', 'score', () => ({ fields: { home: { name: null } } }), ['fields.home.name']],
    ['a step beyond the total, after merging', 'steps', () => ({ fields: { totalSteps: 1 } }), ['fields.currentStep']],
    [
      'a metrics list given in part (a list is replaced, not merged by position)',
      'metrics',
      () => ({ fields: { metrics: [{ value: 80 }] } }),
      ['fields.metrics.0.label'],
    ],
    ['an empty metrics list', 'metrics', () => ({ fields: { metrics: [] } }), ['fields.metrics']],
    ['removing the metrics', 'metrics', () => ({ fields: { metrics: null } }), ['fields.metrics']],
    ['a state not in the list', 'status', () => ({ fields: { state: 'down' } }), ['fields.state']],
    ['removing the state', 'status', () => ({ fields: { state: null } }), ['fields.state']],
    ['a status field on a status activity', 'status', () => ({ fields: { status: 'Fine' } }), ['fields.status']],
    ['no fields', 'progress', () => ({ alert: { title: 'x' } }), ['fields']],
    ['fields that are not an object', 'progress', () => ({ fields: 'progress=0.5' }), ['fields']],
    ['an alert without title', 'progress', () => ({ fields: {}, alert: { body: 'b' } }), ['alert.title']],
    [
      'a staleAt in the past',
      'progress',
      () => ({ fields: {}, staleAt: new Date(t.clock.now() - 1000).toISOString() }),
      ['staleAt'],
    ],
    ['a staleAt that is not a date', 'progress', () => ({ fields: {}, staleAt: 'later' }), ['staleAt']],
    [
      'a dismissAt (only an end takes one)',
      'progress',
      () => ({ fields: {}, dismissAt: new Date(t.clock.now()).toISOString() }),
      ['dismissAt'],
    ],
    ['a priority that is neither high nor low', 'progress', () => ({ fields: {}, priority: 'urgent' }), ['priority']],
    [
      'a sound longer than 64 characters',
      'progress',
      () => ({ fields: {}, alert: { title: 'x', sound: 's'.repeat(65) } }),
      ['alert.sound'],
    ],
    [
      'an alert localized under something that is not a language tag',
      'progress',
      () => ({ fields: {}, alert: { title: 'x', localizations: { 'en_US!': { title: 'y' } } } }),
      ['alert.localizations.en_US!'],
    ],
    ['a template change', 'progress', () => ({ fields: {}, template: 'steps' }), ['template']],
  ])('refuses %s, naming the field, and changes or charges nothing', async (_name, template, body, fields) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders', starts[template]);
    const before = await accountState(t, account.id);
    const activityBefore = (await get(t.app, activityPath(id), account.secretKey)).body.data;
    expectValidation(await post(t.app, activityPath(id, 'update'), account.secretKey, body()), fields);
    expect(await accountState(t, account.id)).toEqual(before);
    expect((await get(t.app, activityPath(id), account.secretKey)).body.data).toEqual(activityBefore);
  });

  it('does not advance the APNs timestamp of a refused update', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const stamp = async () =>
      (
        await t.store.db
          .selectFrom('live_activities')
          .select('push_timestamp')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).push_timestamp;
    const before = await stamp();
    expectValidation(await post(t.app, activityPath(id, 'update'), account.secretKey, { fields: { progress: 2 } }), [
      'fields.progress',
    ]);
    expect(await stamp()).toBe(before);
  });
});
