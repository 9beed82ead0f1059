import { describe, expect, it } from 'vitest';
import {
  buildApnsLiveActivityHeaders,
  buildApnsLiveActivityPayload,
} from '../../../src/delivery/live-activities/apns-live-activity-payload.ts';
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
