import { describe, expect, it } from 'vitest';
import { defaultStartAlert } from '../../../src/domain/live-activities/live-activity-alert.ts';
import {
  apnsTimestampSeconds,
  effectiveStatus,
  nextPushTimestamp,
} from '../../../src/domain/live-activities/live-activity-lifecycle.ts';
import {
  mergeTemplateFields,
  statusLineField,
  templateAttributesTypes,
  templateNames,
  templateSchemas,
  validateTemplateFields,
  type TemplateName,
} from '../../../src/domain/live-activities/live-activity-templates.ts';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const team = (name: string, score: number) => ({ name, score });
const metric = (label: string, value: number, extra: { unit?: string; trend?: string } = {}) => ({
  label,
  value,
  ...extra,
});

describe('validateTemplateFields', () => {
  it.each<[string, TemplateName, unknown, Array<{ field: string; message: string }>]>([
    [
      'progress as a percentage',
      'progress',
      { title: 'x', progress: 45 },
      [{ field: 'fields.progress', message: 'progress is a fraction from 0 to 1: send 0.45 for 45 %' }],
    ],
    [
      'a negative progress',
      'progress',
      { title: 'x', progress: -0.5 },
      [{ field: 'fields.progress', message: 'progress is a fraction from 0 to 1: send 0.45 for 45 %' }],
    ],
    [
      'an empty title',
      'progress',
      { title: '', progress: 0.5 },
      [{ field: 'fields.title', message: 'must not be empty' }],
    ],
    [
      'a title of 101 characters',
      'progress',
      { title: 'x'.repeat(101), progress: 0.5 },
      [{ field: 'fields.title', message: 'must have at most 100 characters' }],
    ],
    [
      'a missing title',
      'steps',
      { currentStep: 1, totalSteps: 2 },
      [{ field: 'fields.title', message: 'is required' }],
    ],
    [
      'an unknown field',
      'progress',
      { title: 'x', progress: 0.5, eta: 3 },
      [{ field: 'fields.eta', message: 'is not a known field' }],
    ],
    [
      'a timer without an end',
      'timer',
      { title: 'x' },
      [{ field: 'fields.endsAt', message: 'a timer needs endsAt (ISO 8601) or durationSeconds' }],
    ],
    [
      'a timer with both',
      'timer',
      { title: 'x', endsAt: '2026-01-15T13:00:00Z', durationSeconds: 60 },
      [{ field: 'fields.durationSeconds', message: 'give endsAt or durationSeconds, not both' }],
    ],
    [
      'a timer over 8 hours',
      'timer',
      { title: 'x', durationSeconds: 28_801 },
      [
        {
          field: 'fields.durationSeconds',
          message: 'durationSeconds is a whole number of seconds from 1 to 28800 (8 hours)',
        },
      ],
    ],
    [
      'a timer end that is not a time',
      'timer',
      { title: 'x', endsAt: 'soon' },
      [{ field: 'fields.endsAt', message: 'endsAt is an ISO 8601 time with offset, like 2026-05-01T12:30:00Z' }],
    ],
    [
      'a negative score',
      'score',
      { title: 'x', home: team('A', -1), away: team('B', 0) },
      [{ field: 'fields.home.score', message: 'a score is a whole number from 0 to 9999' }],
    ],
    [
      'a fractional score',
      'score',
      { title: 'x', home: team('A', 1.5), away: team('B', 0) },
      [{ field: 'fields.home.score', message: 'a score is a whole number from 0 to 9999' }],
    ],
    [
      'an empty team name',
      'score',
      { title: 'x', home: team('', 1), away: team('B', 0) },
      [{ field: 'fields.home.name', message: 'a team name is 1 to 40 characters' }],
    ],
    [
      'step 0',
      'steps',
      { title: 'x', currentStep: 0, totalSteps: 3 },
      [
        {
          field: 'fields.currentStep',
          message: 'currentStep is the step under way, a whole number from 1 to 20 (the first step is 1)',
        },
      ],
    ],
    [
      '21 steps',
      'steps',
      { title: 'x', currentStep: 1, totalSteps: 21 },
      [{ field: 'fields.totalSteps', message: 'totalSteps is a whole number from 1 to 20' }],
    ],
    [
      'a step past the last',
      'steps',
      { title: 'x', currentStep: 4, totalSteps: 3 },
      [{ field: 'fields.currentStep', message: 'currentStep cannot be greater than totalSteps' }],
    ],
    [
      'no metrics',
      'metrics',
      { title: 'x', metrics: [] },
      [
        {
          field: 'fields.metrics',
          message: 'metrics is a list of 1 to 4 readings, each {label, value, unit?, trend?}',
        },
      ],
    ],
    [
      'five metrics',
      'metrics',
      { title: 'x', metrics: Array.from({ length: 5 }, (_, index) => metric(`m${index}`, index)) },
      [
        {
          field: 'fields.metrics',
          message: 'metrics is a list of 1 to 4 readings, each {label, value, unit?, trend?}',
        },
      ],
    ],
    [
      'metrics as one object instead of a list',
      'metrics',
      { title: 'x', metrics: metric('CPU', 72) },
      [
        {
          field: 'fields.metrics',
          message: 'metrics is a list of 1 to 4 readings, each {label, value, unit?, trend?}',
        },
      ],
    ],
    [
      'a metric label of 25 characters',
      'metrics',
      { title: 'x', metrics: [metric('x'.repeat(25), 1)] },
      [{ field: 'fields.metrics.0.label', message: 'a metric label is 1 to 24 characters' }],
    ],
    [
      'an empty metric label',
      'metrics',
      { title: 'x', metrics: [metric('CPU', 1), metric('', 2)] },
      [{ field: 'fields.metrics.1.label', message: 'a metric label is 1 to 24 characters' }],
    ],
    [
      'a metric value as text',
      'metrics',
      { title: 'x', metrics: [metric('CPU', '72' as unknown as number)] },
      [{ field: 'fields.metrics.0.value', message: 'a metric value is a number' }],
    ],
    [
      'a metric value that is not finite',
      'metrics',
      { title: 'x', metrics: [metric('CPU', Number.POSITIVE_INFINITY)] },
      [{ field: 'fields.metrics.0.value', message: 'a metric value is a number' }],
    ],
    [
      'a metric unit of 9 characters',
      'metrics',
      { title: 'x', metrics: [{ ...metric('Rate', 5), unit: 'x'.repeat(9) }] },
      [{ field: 'fields.metrics.0.unit', message: 'a metric unit is at most 8 characters' }],
    ],
    [
      'a metric trend not in the list',
      'metrics',
      { title: 'x', metrics: [{ ...metric('CPU', 72), trend: 'rising' }] },
      [{ field: 'fields.metrics.0.trend', message: 'a metric trend is up, down or flat' }],
    ],
    [
      'an unknown member of a metric',
      'metrics',
      { title: 'x', metrics: [{ ...metric('CPU', 72), colour: 'red' }] },
      [{ field: 'fields.metrics.0.colour', message: 'is not a known field' }],
    ],
    ['metrics without the list', 'metrics', { title: 'x' }, [{ field: 'fields.metrics', message: 'is required' }]],
    [
      'a state not in the list',
      'status',
      { title: 'x', state: 'critical' },
      [{ field: 'fields.state', message: 'state is one of ok, warning, error, pending' }],
    ],
    ['a status without its state', 'status', { title: 'x' }, [{ field: 'fields.state', message: 'is required' }]],
    [
      'a message of 201 characters',
      'status',
      { title: 'x', state: 'ok', message: 'x'.repeat(201) },
      [{ field: 'fields.message', message: 'message is at most 200 characters' }],
    ],
    [
      'a status field on the status template (its status line is message)',
      'status',
      { title: 'x', state: 'ok', status: 'fine' },
      [{ field: 'fields.status', message: 'is not a known field' }],
    ],
  ])('refuses %s with a message that says what to send', (_name, template, fields, problems) => {
    expect(validateTemplateFields(template, fields, NOW)).toEqual({ ok: false, problems });
  });

  it.each<[string, TemplateName, Record<string, unknown>, Record<string, unknown>]>([
    ['progress at both ends', 'progress', { title: 'x', progress: 1 }, { title: 'x', progress: 1 }],
    [
      'a timer from its duration',
      'timer',
      { title: 'x', durationSeconds: 90 },
      { title: 'x', endsAt: '2026-01-15T12:01:30.000Z' },
    ],
    [
      'a timer end in any offset, stored in UTC',
      'timer',
      { title: 'x', endsAt: '2026-01-15T14:00:00+02:00' },
      { title: 'x', endsAt: '2026-01-15T12:00:00.000Z' },
    ],
    [
      'a score with a period',
      'score',
      { title: 'x', home: team('A', 0), away: team('B', 9999), period: 'Q4' },
      { title: 'x', home: team('A', 0), away: team('B', 9999), period: 'Q4' },
    ],
    [
      'the last step',
      'steps',
      { title: 'x', currentStep: 20, totalSteps: 20 },
      { title: 'x', currentStep: 20, totalSteps: 20 },
    ],
    [
      'four metrics, with and without unit and trend',
      'metrics',
      {
        title: 'api-1',
        metrics: [
          { label: 'CPU', value: 72.5, unit: '%', trend: 'up' },
          { label: 'Errors', value: 3 },
          { label: 'Latency', value: 120, unit: 'ms', trend: 'flat' },
          { label: 'x'.repeat(24), value: -0.25, unit: 'x'.repeat(8), trend: 'down' },
        ],
        status: 'Packing',
      },
      {
        title: 'api-1',
        metrics: [
          { label: 'CPU', value: 72.5, unit: '%', trend: 'up' },
          { label: 'Errors', value: 3 },
          { label: 'Latency', value: 120, unit: 'ms', trend: 'flat' },
          { label: 'x'.repeat(24), value: -0.25, unit: 'x'.repeat(8), trend: 'down' },
        ],
        status: 'Packing',
      },
    ],
    ...(['ok', 'warning', 'error', 'pending'] as const).map(
      (state): [string, TemplateName, Record<string, unknown>, Record<string, unknown>] => [
        `the ${state} state`,
        'status',
        { title: 'db-2', state, message: 'x'.repeat(200) },
        { title: 'db-2', state, message: 'x'.repeat(200) },
      ],
    ),
    ['a state without a message', 'status', { title: 'db-2', state: 'pending' }, { title: 'db-2', state: 'pending' }],
  ])('accepts %s', (_name, template, fields, expected) => {
    expect(validateTemplateFields(template, fields, NOW)).toEqual({ ok: true, fields: expected });
  });
});

describe('mergeTemplateFields', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    [
      'a given field replaces the current one',
      { title: 'a', progress: 0.1 },
      { progress: 0.2 },
      { title: 'a', progress: 0.2 },
    ],
    [
      'null removes a field',
      { title: 'a', progress: 0.1, status: 's' },
      { status: null },
      { title: 'a', progress: 0.1 },
    ],
    [
      'a team merges by member',
      { home: team('A', 1), away: team('B', 2) },
      { home: { score: 2 } },
      { home: team('A', 2), away: team('B', 2) },
    ],
    [
      'null inside a team removes that member',
      { home: team('A', 1) },
      { home: { name: null } },
      { home: { score: 1 } },
    ],
    [
      'a new duration drops the old end',
      { title: 't', endsAt: '2026-01-15T13:00:00.000Z' },
      { durationSeconds: 60 },
      { title: 't', durationSeconds: 60 },
    ],
    ['nothing changes nothing', { title: 'a', progress: 0.1 }, {}, { title: 'a', progress: 0.1 }],
    [
      'a metrics list is replaced as a whole, not merged by position (RFC 7386 replaces arrays)',
      { title: 'm', metrics: [metric('CPU', 72), metric('Errors', 3), metric('Queue', 9)] },
      { metrics: [{ value: 80 }] },
      { title: 'm', metrics: [{ value: 80 }] },
    ],
    [
      'a metrics list given with fewer items drops the others',
      { title: 'm', metrics: [metric('CPU', 72), metric('Errors', 3)], status: 's' },
      { metrics: [metric('Errors', 0)] },
      { title: 'm', metrics: [metric('Errors', 0)], status: 's' },
    ],
    [
      "null clears a status activity's message",
      { title: 'db-2', state: 'error', message: 'Disk full' },
      { state: 'ok', message: null },
      { title: 'db-2', state: 'ok' },
    ],
  ])('%s', (_name, current, update, merged) => {
    expect(mergeTemplateFields(current, update)).toEqual(merged);
  });

  it('merges a metrics list by replacing it, so a partial reading is refused as incomplete', () => {
    const merged = mergeTemplateFields(
      { title: 'm', metrics: [metric('CPU', 72), metric('Errors', 3)] },
      { metrics: [{ value: 80 }] },
    );
    expect(validateTemplateFields('metrics', merged, NOW)).toEqual({
      ok: false,
      problems: [{ field: 'fields.metrics.0.label', message: 'is required' }],
    });
  });

  it('merges, then validation speaks about the result', () => {
    const merged = mergeTemplateFields({ title: 'x', currentStep: 3, totalSteps: 5 }, { totalSteps: 2 });
    expect(validateTemplateFields('steps', merged, NOW)).toEqual({
      ok: false,
      problems: [{ field: 'fields.currentStep', message: 'currentStep cannot be greater than totalSteps' }],
    });
  });
});

describe('templateAttributesTypes', () => {
  it('names one published ActivityAttributes type per template', () => {
    expect(Object.keys(templateAttributesTypes).sort()).toEqual([...templateNames].sort());
    expect(templateAttributesTypes).toEqual({
      progress: 'ClarionProgressAttributes',
      timer: 'ClarionTimerAttributes',
      score: 'ClarionScoreAttributes',
      steps: 'ClarionStepsAttributes',
      metrics: 'ClarionMetricsAttributes',
      status: 'ClarionStatusAttributes',
    });
  });
});

describe('statusLineField', () => {
  it('is message for the status template, whose state is the status itself, and status for every other', () => {
    expect(Object.fromEntries(templateNames.map((template) => [template, statusLineField(template)]))).toEqual({
      progress: 'status',
      timer: 'status',
      score: 'status',
      steps: 'status',
      metrics: 'status',
      status: 'message',
    });
  });

  it('names a field each template declares', () => {
    for (const template of templateNames)
      expect(Object.keys(templateSchemas[template].properties), template).toContain(statusLineField(template));
  });
});

describe('defaultStartAlert', () => {
  it.each<[TemplateName, Record<string, unknown>, { title: string; body: string }]>([
    ['progress', { title: 'Upload', progress: 0.45 }, { title: 'Upload', body: '45 %' }],
    ['progress', { title: 'Upload', progress: 0.999, status: 'Almost' }, { title: 'Upload', body: '100 % · Almost' }],
    ['timer', { title: 'Pizza', endsAt: '2026-01-15T13:00:00.000Z' }, { title: 'Pizza', body: 'Countdown started' }],
    [
      'timer',
      { title: 'Pizza', endsAt: '2026-01-15T13:00:00.000Z', status: 'In the oven' },
      { title: 'Pizza', body: 'In the oven' },
    ],
    [
      'score',
      { title: 'Final', home: team('Ajax', 2), away: team('PSV', 1), period: 'FT' },
      { title: 'Final', body: 'Ajax 2 – 1 PSV (FT)' },
    ],
    [
      'steps',
      { title: 'Ride', currentStep: 2, totalSteps: 4, status: 'On the way' },
      { title: 'Ride', body: 'Step 2 of 4 · On the way' },
    ],
    [
      'metrics',
      {
        title: 'api-1',
        metrics: [
          metric('CPU', 72, { unit: '%', trend: 'up' }),
          metric('Errors', 3),
          metric('p99', 0.25, { unit: 's' }),
        ],
        status: 'Packing',
      },
      { title: 'api-1', body: 'CPU 72 % ↑ · Errors 3 · p99 0.25 s · Packing' },
    ],
    [
      'metrics',
      { title: 'api-1', metrics: [metric('Load', 1.5, { trend: 'down' }), metric('Queue', 0, { trend: 'flat' })] },
      { title: 'api-1', body: 'Load 1.5 ↓ · Queue 0 →' },
    ],
    [
      'status',
      { title: 'db-2', state: 'error', message: 'Disk full on db-2' },
      { title: 'db-2', body: 'Error · Disk full on db-2' },
    ],
    ['status', { title: 'db-2', state: 'ok' }, { title: 'db-2', body: 'OK' }],
    [
      'status',
      { title: 'db-2', state: 'warning', message: 'Disk 91 %' },
      { title: 'db-2', body: 'Warning · Disk 91 %' },
    ],
    ['status', { title: 'db-2', state: 'pending', message: '' }, { title: 'db-2', body: 'Pending' }],
  ])('%s %j', (template, fields, alert) => {
    expect(defaultStartAlert(template, fields)).toEqual(alert);
  });
});

describe('Live Activity time rules', () => {
  it.each([
    ['the current millisecond for the first push', 0, NOW + 999, NOW + 999],
    ['the current millisecond when the last is older', NOW - 5, NOW, NOW],
    ['one more than the last in the same millisecond', NOW, NOW, NOW + 1],
    ['one more than a last a few events ahead of the clock', NOW + 3, NOW, NOW + 4],
    ['the current millisecond after a last still in seconds', NOW / 1000 + 3, NOW, NOW],
  ])('nextPushTimestamp: %s', (_name, last, now, expected) => {
    expect(nextPushTimestamp(last, now)).toBe(expected);
  });

  it('stays within a second of the clock under 10 events a second for an hour (iOS drops timestamps 8 hours ahead)', () => {
    let last = 0;
    let now = NOW;
    for (let n = 0; n < 36_000; n += 1) {
      now += 100;
      last = nextPushTimestamp(last, now);
    }
    expect(apnsTimestampSeconds(last)).toBe(Math.floor(now / 1000));
  });

  it('gives APNs an event timestamp in whole seconds', () => {
    expect(apnsTimestampSeconds(NOW + 1_500)).toBe(NOW / 1000 + 1);
  });

  it.each<
    [
      string,
      { status: 'scheduled' | 'active' | 'ended' | 'canceled'; ended_at: number | null; started_at?: number | null },
      number,
      { status: string; endedAt: number | null },
    ]
  >([
    [
      'active within its 8 hours',
      { status: 'active', ended_at: null },
      NOW + 8 * 3600_000 - 1,
      { status: 'active', endedAt: null },
    ],
    [
      'ended at 8 hours even if not recorded',
      { status: 'active', ended_at: null },
      NOW + 8 * 3600_000,
      { status: 'ended', endedAt: NOW + 8 * 3600_000 },
    ],
    [
      'ended by the caller',
      { status: 'ended', ended_at: NOW + 60_000 },
      NOW + 120_000,
      { status: 'ended', endedAt: NOW + 60_000 },
    ],
    [
      'scheduled, even past 8 hours after it was accepted',
      { status: 'scheduled', ended_at: null, started_at: null },
      NOW + 9 * 3600_000,
      { status: 'scheduled', endedAt: null },
    ],
    [
      'started later than accepted: 8 hours from its start',
      { status: 'active', ended_at: null, started_at: NOW + 3600_000 },
      NOW + 8 * 3600_000,
      { status: 'active', endedAt: null },
    ],
    [
      'canceled before it started',
      { status: 'canceled', ended_at: null, started_at: null },
      NOW + 60_000,
      { status: 'canceled', endedAt: null },
    ],
  ])('effectiveStatus: %s', (_name, row, now, expected) => {
    expect(effectiveStatus({ started_at: NOW, ...row }, now)).toEqual(expected);
  });
});
