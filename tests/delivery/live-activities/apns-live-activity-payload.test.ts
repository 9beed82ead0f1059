import { describe, expect, it } from 'vitest';
import {
  apnsLiveActivityPayloadBytes,
  APNS_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES,
  buildApnsLiveActivityHeaders,
  buildApnsLiveActivityPayload,
} from '../../../src/delivery/live-activities/apns-live-activity-payload.ts';
import {
  templateNames,
  validateTemplateFields,
  type TemplateFields,
  type TemplateName,
} from '../../../src/domain/live-activities/live-activity-templates.ts';
import type { LiveActivityPush } from '../../../src/delivery/live-activities/live-activity-push.ts';

const CREATED = Date.UTC(2026, 0, 15, 12, 0, 0);
const base: LiveActivityPush = {
  activityId: 'lva_01jhx0000000000000000000000',
  template: 'progress',
  event: 'start',
  timestamp: CREATED,
  fields: { title: 'Order #42', progress: 0.45 },
  alert: { title: 'Your order', body: 'is being packed' },
  staleAt: null,
  dismissAt: null,
  relevanceScore: null,
  priority: null,
  expiresAt: CREATED + 8 * 3600_000,
};
const push = (overrides: Partial<LiveActivityPush>): LiveActivityPush => ({ ...base, ...overrides });
/** The start's `aps.timestamp`: APNs counts in seconds. */
const T = CREATED / 1000;

describe('buildApnsLiveActivityPayload', () => {
  it.each<[string, LiveActivityPush, Record<string, unknown>]>([
    [
      'start: attributes type and id, alert, input-push-token',
      base,
      {
        timestamp: T,
        event: 'start',
        'content-state': base.fields,
        'attributes-type': 'ClarionProgressAttributes',
        attributes: { activityId: base.activityId },
        alert: { title: 'Your order', body: 'is being packed' },
        'input-push-token': 1,
      },
    ],
    [
      'start with stale date and relevance',
      push({
        template: 'steps',
        fields: { title: 'Ride', currentStep: 1, totalSteps: 3 },
        alert: { title: 'Ride' },
        staleAt: CREATED + 600_500,
        relevanceScore: 75,
      }),
      {
        timestamp: T,
        event: 'start',
        'content-state': { title: 'Ride', currentStep: 1, totalSteps: 3 },
        'attributes-type': 'ClarionStepsAttributes',
        attributes: { activityId: base.activityId },
        alert: { title: 'Ride' },
        'input-push-token': 1,
        'stale-date': T + 600,
        'relevance-score': 75,
      },
    ],
    [
      'metrics start: the list in the content state as given, its own attributes type',
      push({
        template: 'metrics',
        fields: {
          title: 'api-1',
          metrics: [
            { label: 'CPU', value: 72, unit: '%', trend: 'up' },
            { label: 'Errors', value: 3 },
          ],
          status: 'Packing',
        },
        alert: null,
      }),
      {
        timestamp: T,
        event: 'start',
        'content-state': {
          title: 'api-1',
          metrics: [
            { label: 'CPU', value: 72, unit: '%', trend: 'up' },
            { label: 'Errors', value: 3 },
          ],
          status: 'Packing',
        },
        'attributes-type': 'ClarionMetricsAttributes',
        attributes: { activityId: base.activityId },
        alert: { title: 'api-1', body: 'CPU 72 % ↑ · Errors 3 · Packing' },
        'input-push-token': 1,
      },
    ],
    [
      'status start: state and message, the default alert in words',
      push({ template: 'status', fields: { title: 'db-2', state: 'error', message: 'Disk full' }, alert: null }),
      {
        timestamp: T,
        event: 'start',
        'content-state': { title: 'db-2', state: 'error', message: 'Disk full' },
        'attributes-type': 'ClarionStatusAttributes',
        attributes: { activityId: base.activityId },
        alert: { title: 'db-2', body: 'Error · Disk full' },
        'input-push-token': 1,
      },
    ],
    [
      'start without an alert in the snapshot: the default one',
      push({ alert: null }),
      {
        timestamp: T,
        event: 'start',
        'content-state': base.fields,
        'attributes-type': 'ClarionProgressAttributes',
        attributes: { activityId: base.activityId },
        alert: { title: 'Order #42', body: '45 %' },
        'input-push-token': 1,
      },
    ],
    [
      'silent update',
      push({ event: 'update', timestamp: CREATED + 1_000, alert: null }),
      { timestamp: T + 1, event: 'update', 'content-state': base.fields },
    ],
    [
      'alerting update with stale date',
      push({
        event: 'update',
        timestamp: CREATED + 2_000,
        alert: { title: 'Halfway' },
        staleAt: CREATED + 60_000,
        relevanceScore: 10,
      }),
      {
        timestamp: T + 2,
        event: 'update',
        'content-state': base.fields,
        alert: { title: 'Halfway' },
        'stale-date': T + 60,
        'relevance-score': 10,
      },
    ],
    [
      'end with dismissal date',
      push({ event: 'end', timestamp: CREATED + 3_000, alert: null, dismissAt: CREATED + 900_000 }),
      { timestamp: T + 3, event: 'end', 'content-state': base.fields, 'dismissal-date': T + 900 },
    ],
    [
      'alerts carry their sound inside alert, the end too',
      push({ event: 'end', timestamp: CREATED + 4_000, alert: { title: 'Delivered', sound: 'chime.aiff' } }),
      {
        timestamp: T + 4,
        event: 'end',
        'content-state': base.fields,
        alert: { title: 'Delivered', sound: 'chime.aiff' },
      },
    ],
    [
      'end without: the system keeps it up to 4 hours',
      push({ event: 'end', timestamp: CREATED + 3_000, alert: null, staleAt: CREATED + 60_000 }),
      { timestamp: T + 3, event: 'end', 'content-state': base.fields },
    ],
  ])('%s', (_name, input, aps) => {
    expect(buildApnsLiveActivityPayload(input)).toEqual({ aps });
  });
});

describe('the longest content state of each template', () => {
  // Every string at its maximum length in a character JSON writes as six bytes ("\u0001"), every free number at its
  // longest (24 characters): the worst case live-activity-templates.ts states.
  const long = (length: number) => '\u0001'.repeat(length);
  const longestNumber = -2.2250738585072014e-308;
  const longest: Record<TemplateName, TemplateFields> = {
    progress: { title: long(100), progress: 0.30000000000000004, status: long(200) },
    timer: { title: long(100), endsAt: '2026-01-15T13:00:00.000Z', status: long(200) },
    score: {
      title: long(100),
      home: { name: long(40), score: 9999 },
      away: { name: long(40), score: 9999 },
      period: long(32),
      status: long(200),
    },
    steps: { title: long(100), currentStep: 20, totalSteps: 20, status: long(200) },
    metrics: {
      title: long(100),
      metrics: Array.from({ length: 4 }, () => ({
        label: long(24),
        value: longestNumber,
        unit: long(8),
        trend: 'down',
      })),
      status: long(200),
    },
    status: { title: long(100), state: 'pending', message: long(200) },
  };

  it.each(templateNames)(
    '%s: valid, and a silent update with it, a stale date and a relevance fits 4,096 bytes',
    (template) => {
      expect(validateTemplateFields(template, longest[template], CREATED)).toMatchObject({ ok: true });
      const update = push({
        template,
        event: 'update',
        fields: longest[template],
        alert: null,
        staleAt: CREATED + 60_000,
        relevanceScore: 100,
      });
      expect(apnsLiveActivityPayloadBytes(update)).toBeLessThanOrEqual(APNS_LIVE_ACTIVITY_MAX_PAYLOAD_BYTES);
    },
  );

  it('is at most 2,888 bytes, a metrics state: the bound the templates module states', () => {
    const sizes = templateNames.map((template) => Buffer.byteLength(JSON.stringify(longest[template])));
    expect(Math.max(...sizes)).toBe(2_888);
    expect(Buffer.byteLength(JSON.stringify(longest.metrics))).toBe(2_888);
  });
});

describe('buildApnsLiveActivityHeaders', () => {
  it.each<[string, LiveActivityPush, string]>([
    ['start', base, '10'],
    ['alerting update', push({ event: 'update', alert: { title: 'x' } }), '10'],
    ['silent update', push({ event: 'update', alert: null }), '5'],
    ['end', push({ event: 'end', alert: null }), '10'],
    ['silent update asked high', push({ event: 'update', alert: null, priority: 'high' }), '10'],
    ['alerting update asked low', push({ event: 'update', alert: { title: 'x' }, priority: 'low' }), '5'],
    ['end asked low', push({ event: 'end', alert: null, priority: 'low' }), '5'],
    ['end asked high', push({ event: 'end', alert: null, priority: 'high' }), '10'],
    ['start ignores a priority (push-to-start is always 10)', push({ priority: 'low' }), '10'],
  ])('%s: priority %s, the liveactivity topic, and an expiration at the 8-hour end', (_name, input, priority) => {
    expect(buildApnsLiveActivityHeaders(input, 'com.example.app')).toEqual({
      'apns-push-type': 'liveactivity',
      'apns-topic': 'com.example.app.push-type.liveactivity',
      'apns-priority': priority,
      'apns-expiration': String(CREATED / 1000 + 8 * 3600),
    });
  });
});
