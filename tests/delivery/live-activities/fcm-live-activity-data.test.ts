import { describe, expect, it } from 'vitest';
import {
  buildFcmLiveActivityData,
  fcmLiveActivityOptions,
  fcmLiveActivityPayloadBytes,
} from '../../../src/delivery/live-activities/fcm-live-activity-data.ts';
import { buildFcmDataMessage } from '../../../src/delivery/fcm/fcm-message.ts';
import type { LiveActivityPush } from '../../../src/delivery/live-activities/live-activity-push.ts';

const CREATED = Date.UTC(2026, 0, 15, 12, 0, 0);
const base: LiveActivityPush = {
  activityId: 'lva_01jhx0000000000000000000000',
  template: 'score',
  event: 'start',
  timestamp: CREATED,
  fields: { title: 'Match', home: { name: 'A', score: 0 }, away: { name: 'B', score: 0 } },
  alert: { title: 'Kick-off' },
  staleAt: CREATED + 60_000,
  dismissAt: null,
  relevanceScore: 20,
  priority: null,
  expiresAt: CREATED + 8 * 3600_000,
};
const common = {
  clarion: 'live_activity',
  activityId: base.activityId,
  template: 'score',
  fields: JSON.stringify(base.fields),
};

describe('buildFcmLiveActivityData', () => {
  it.each<[string, LiveActivityPush, Record<string, string>]>([
    [
      'start',
      base,
      {
        ...common,
        event: 'start',
        timestamp: String(CREATED),
        alert: '{"title":"Kick-off"}',
        staleAt: '2026-01-15T12:01:00.000Z',
      },
    ],
    [
      'silent update',
      { ...base, event: 'update', timestamp: base.timestamp + 1, alert: null, staleAt: null },
      { ...common, event: 'update', timestamp: String(CREATED + 1) },
    ],
    [
      'end with dismissAt (no staleAt on an end)',
      { ...base, event: 'end', timestamp: base.timestamp + 2, alert: null, dismissAt: CREATED + 600_000 },
      { ...common, event: 'end', timestamp: String(CREATED + 2), dismissAt: '2026-01-15T12:10:00.000Z' },
    ],
    [
      'metrics: the list inside the fields JSON, as the content state has it',
      {
        ...base,
        template: 'metrics',
        fields: { title: 'api-1', metrics: [{ label: 'CPU', value: 72.5, unit: '%', trend: 'up' }] },
        alert: null,
        staleAt: null,
      },
      {
        ...common,
        template: 'metrics',
        event: 'start',
        timestamp: String(CREATED),
        fields: '{"title":"api-1","metrics":[{"label":"CPU","value":72.5,"unit":"%","trend":"up"}]}',
      },
    ],
    [
      'status: state and message',
      {
        ...base,
        template: 'status',
        event: 'update',
        fields: { title: 'db-2', state: 'error', message: 'Disk full' },
        alert: null,
        staleAt: null,
      },
      {
        ...common,
        template: 'status',
        event: 'update',
        timestamp: String(CREATED),
        fields: '{"title":"db-2","state":"error","message":"Disk full"}',
      },
    ],
  ])('%s: string values only', (_name, push, data) => {
    const built = buildFcmLiveActivityData(push);
    expect(built).toEqual(data);
    expect(Object.values(built).every((value) => typeof value === 'string')).toBe(true);
  });

  it('is a HIGH-priority data message, never collapsible, without a notification block', () => {
    const message = buildFcmDataMessage(
      'token-1',
      buildFcmLiveActivityData(base),
      fcmLiveActivityOptions(base),
      CREATED,
    ).message;
    expect(message).toEqual({
      token: 'token-1',
      data: expect.any(Object),
      android: { priority: 'HIGH', ttl: `${8 * 3600}s` },
    });
  });

  it.each<[string, LiveActivityPush, number, string]>([
    ['a start, at once', base, CREATED, `${8 * 3600}s`],
    ['an update 3 hours in', { ...base, event: 'update' }, CREATED + 3 * 3600_000, `${5 * 3600}s`],
    ['an end 3 hours in: 4 hours past the 8', { ...base, event: 'end' }, CREATED + 3 * 3600_000, `${9 * 3600}s`],
    ['the 8-hour end', { ...base, event: 'end' }, CREATED + 8 * 3600_000, `${4 * 3600}s`],
  ])('lives at FCM as long as it is worth delivering: %s', (_name, push, now, ttl) => {
    expect(buildFcmDataMessage('token-1', {}, fcmLiveActivityOptions(push), now).message.android?.ttl).toBe(ttl);
  });

  it("counts keys and values the way FCM's 4 KB limit does, with the longest TTL", () => {
    const data = buildFcmLiveActivityData(base);
    const expected =
      Object.entries(data).reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0) +
      'priorityHIGHttl2419200s'.length;
    expect(fcmLiveActivityPayloadBytes(base)).toBe(expected);
  });
});
