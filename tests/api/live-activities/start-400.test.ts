import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const progress = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  channelCode: 'orders',
  template: 'progress',
  fields,
  ...extra,
});
const team = (name: string, score: number) => ({ name, score });

describe('POST /api/v1/live-activities → 400 validation_failed', () => {
  it('explains that progress is a fraction when given a percentage', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const response = await post(
      t.app,
      '/api/v1/live-activities',
      account.secretKey,
      progress({ title: 'Upload', progress: 45 }),
    );
    expect(expectValidation(response, ['fields.progress'])).toEqual([
      { field: 'fields.progress', message: 'progress is a fraction from 0 to 1: send 0.45 for 45 %' },
    ]);
  });

  it.each<[string, () => Record<string, unknown>, string[]]>([
    ['a negative progress', () => progress({ title: 'x', progress: -0.1 }), ['fields.progress']],
    ['a progress that is a string', () => progress({ title: 'x', progress: '0.5' }), ['fields.progress']],
    ['a progress without title', () => progress({ progress: 0.5 }), ['fields.title']],
    ['an unknown member of fields', () => progress({ title: 'x', progress: 0.5, colour: 'red' }), ['fields.colour']],
    ['fields that are not an object', () => progress([0.5] as never), ['fields']],
    ['no fields', () => ({ channelCode: 'orders', template: 'progress' }), ['fields']],
    [
      'an unknown template',
      () => ({ channelCode: 'orders', template: 'countdown', fields: { title: 'x' } }),
      ['template'],
    ],
    ['no template', () => ({ channelCode: 'orders', fields: { title: 'x' } }), ['template']],
    [
      'an unknown delivery mode',
      () => progress({ title: 'x', progress: 0.5 }, { delivery: 'multicast' }),
      ['delivery'],
    ],
    ['no channelCode', () => ({ template: 'progress', fields: { title: 'x', progress: 0.5 } }), ['channelCode']],
    [
      'a timer without endsAt or durationSeconds',
      () => ({ channelCode: 'orders', template: 'timer', fields: { title: 'x' } }),
      ['fields.endsAt'],
    ],
    [
      'a timer endsAt that is not a date',
      () => ({ channelCode: 'orders', template: 'timer', fields: { title: 'x', endsAt: 'soon' } }),
      ['fields.endsAt'],
    ],
    [
      'a timer of more than 8 hours',
      () => ({ channelCode: 'orders', template: 'timer', fields: { title: 'x', durationSeconds: 8 * 3600 + 1 } }),
      ['fields.durationSeconds'],
    ],
    [
      'a timer with both endsAt and durationSeconds',
      () => ({
        channelCode: 'orders',
        template: 'timer',
        fields: { title: 'x', endsAt: '2099-01-01T00:00:00Z', durationSeconds: 60 },
      }),
      ['fields.durationSeconds'],
    ],
    [
      'a timer of 0 seconds',
      () => ({ channelCode: 'orders', template: 'timer', fields: { title: 'x', durationSeconds: 0 } }),
      ['fields.durationSeconds'],
    ],
    [
      'a score without away',
      () => ({ channelCode: 'orders', template: 'score', fields: { title: 'x', home: team('A', 1) } }),
      ['fields.away'],
    ],
    [
      'a negative score',
      () => ({
        channelCode: 'orders',
        template: 'score',
        fields: { title: 'x', home: team('A', -1), away: team('B', 0) },
      }),
      ['fields.home.score'],
    ],
    [
      'a team without a name',
      () => ({
        channelCode: 'orders',
        template: 'score',
        fields: { title: 'x', home: { score: 1 }, away: team('B', 0) },
      }),
      ['fields.home.name'],
    ],
    [
      'a currentStep beyond totalSteps',
      () => ({ channelCode: 'orders', template: 'steps', fields: { title: 'x', currentStep: 5, totalSteps: 4 } }),
      ['fields.currentStep'],
    ],
    [
      'a step of 0',
      () => ({ channelCode: 'orders', template: 'steps', fields: { title: 'x', currentStep: 0, totalSteps: 4 } }),
      ['fields.currentStep'],
    ],
    [
      'metrics that are an empty list',
      () => ({ channelCode: 'orders', template: 'metrics', fields: { title: 'x', metrics: [] } }),
      ['fields.metrics'],
    ],
    [
      'five metrics',
      () => ({
        channelCode: 'orders',
        template: 'metrics',
        fields: { title: 'x', metrics: Array.from({ length: 5 }, (_, index) => ({ label: `m${index}`, value: 1 })) },
      }),
      ['fields.metrics'],
    ],
    [
      'a metric label of 25 characters',
      () => ({
        channelCode: 'orders',
        template: 'metrics',
        fields: { title: 'x', metrics: [{ label: 'x'.repeat(25), value: 1 }] },
      }),
      ['fields.metrics.0.label'],
    ],
    [
      'a metric value that is text',
      () => ({
        channelCode: 'orders',
        template: 'metrics',
        fields: { title: 'x', metrics: [{ label: 'CPU', value: '72 %' }] },
      }),
      ['fields.metrics.0.value'],
    ],
    [
      'a metric without a value',
      () => ({ channelCode: 'orders', template: 'metrics', fields: { title: 'x', metrics: [{ label: 'CPU' }] } }),
      ['fields.metrics.0.value'],
    ],
    [
      'a metric unit of 9 characters',
      () => ({
        channelCode: 'orders',
        template: 'metrics',
        fields: { title: 'x', metrics: [{ label: 'Rate', value: 1, unit: 'requests/' }] },
      }),
      ['fields.metrics.0.unit'],
    ],
    [
      'a metric trend that is not up, down or flat',
      () => ({
        channelCode: 'orders',
        template: 'metrics',
        fields: { title: 'x', metrics: [{ label: 'CPU', value: 1, trend: 'rising' }] },
      }),
      ['fields.metrics.0.trend'],
    ],
    [
      'a status state not in the list',
      () => ({ channelCode: 'orders', template: 'status', fields: { title: 'x', state: 'critical' } }),
      ['fields.state'],
    ],
    [
      'a status without a state',
      () => ({ channelCode: 'orders', template: 'status', fields: { title: 'x', message: 'Disk full' } }),
      ['fields.state'],
    ],
    [
      'a status message of 201 characters',
      () => ({
        channelCode: 'orders',
        template: 'status',
        fields: { title: 'x', state: 'ok', message: 'x'.repeat(201) },
      }),
      ['fields.message'],
    ],
    [
      'a status field on the status template (its line is message)',
      () => ({ channelCode: 'orders', template: 'status', fields: { title: 'x', state: 'ok', status: 'fine' } }),
      ['fields.status'],
    ],
    [
      'a staleAt in the past',
      () => progress({ title: 'x', progress: 0.5 }, { staleAt: new Date(t.clock.now() - 1000).toISOString() }),
      ['staleAt'],
    ],
    ['a staleAt that is not a date', () => progress({ title: 'x', progress: 0.5 }, { staleAt: 'later' }), ['staleAt']],
    [
      'a relevanceScore over 100',
      () => progress({ title: 'x', progress: 0.5 }, { relevanceScore: 101 }),
      ['relevanceScore'],
    ],
    [
      'an alert without title',
      () => progress({ title: 'x', progress: 0.5 }, { alert: { body: 'b' } }),
      ['alert.title'],
    ],
    [
      'an alert localized under something that is not a language tag',
      () =>
        progress(
          { title: 'x', progress: 0.5 },
          { alert: { title: 'x', localizations: { 'not a tag': { title: 'y' } } } },
        ),
      ['alert.localizations.not a tag'],
    ],
    [
      'an alert localized twice for one language',
      () =>
        progress(
          { title: 'x', progress: 0.5 },
          { alert: { title: 'x', localizations: { 'de-de': { title: 'y' }, 'de-DE': { title: 'z' } } } },
        ),
      ['alert.localizations.de-DE'],
    ],
    [
      'a localized alert without its own title',
      () => progress({ title: 'x', progress: 0.5 }, { alert: { title: 'x', localizations: { de: { body: 'y' } } } }),
      ['alert.localizations.de.title'],
    ],
    ['an unknown top-level field', () => progress({ title: 'x', progress: 0.5 }, { sound: 'ding' }), ['sound']],
  ])('refuses %s, naming the field, and stores or charges nothing', async (_name, body, fields) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    expectValidation(await post(t.app, '/api/v1/live-activities', account.secretKey, body()), fields);
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
