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
