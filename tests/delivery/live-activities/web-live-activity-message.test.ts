import { describe, expect, it } from 'vitest';
import {
  END_LIFETIME_MS,
  webLiveActivityContent,
} from '../../../src/delivery/live-activities/web-live-activity-message.ts';
import type { LiveActivityPush } from '../../../src/delivery/live-activities/live-activity-push.ts';
import { buildWebPushHeaders, buildWebPushMessage } from '../../../src/delivery/web-push/web-push-message.ts';

const START = Date.parse('2026-05-01T10:00:00Z');

function push(overrides: Partial<LiveActivityPush>): LiveActivityPush {
  return {
    activityId: 'lva_01hx0000000000000000000000',
    template: 'progress',
    event: 'update',
    timestamp: START + 60_000,
    fields: { title: 'Order #42', progress: 0.45, status: 'Packing' },
    alert: null,
    staleAt: null,
    dismissAt: null,
    relevanceScore: null,
    expiresAt: START + 8 * 3600_000,
    priority: null,
    ...overrides,
  };
}

const nowhere = { timeZone: null, locale: null };

describe('the web notification of a Live Activity (web-live-activity-message.ts)', () => {
  it.each([
    ['progress, silent update', push({}), nowhere, 'Order #42', '▓▓▓▓▓░░░░░\n45 % · Packing', false],
    [
      'progress, start with its alert',
      push({ event: 'start', alert: { title: 'Your order', body: 'is being packed' } }),
      nowhere,
      'Order #42',
      'Your order: is being packed\n▓▓▓▓▓░░░░░\n45 % · Packing',
      true,
    ],
    [
      'progress, end',
      push({ event: 'end', fields: { title: 'Order #42', progress: 1, status: 'Delivered' } }),
      nowhere,
      'Order #42',
      '▓▓▓▓▓▓▓▓▓▓\n100 % · Delivered\nEnded',
      false,
    ],
    [
      'progress with a stale time, in the subscriber’s zone and language',
      push({ staleAt: Date.parse('2026-05-01T10:30:00Z') }),
      { timeZone: 'Europe/Berlin', locale: 'de-DE' },
      'Order #42',
      '▓▓▓▓▓░░░░░\n45 % · Packing\nOut of date after 12:30',
      false,
    ],
    [
      'progress with a stale time, no zone known',
      push({ staleAt: Date.parse('2026-05-01T10:30:00Z') }),
      nowhere,
      'Order #42',
      '▓▓▓▓▓░░░░░\n45 % · Packing\nOut of date after 10:30 UTC',
      false,
    ],
    [
      'timer in the subscriber’s zone and language',
      push({
        template: 'timer',
        fields: { title: 'Gate closes', endsAt: '2026-05-01T12:30:00.000Z', status: 'Boarding' },
      }),
      { timeZone: 'Europe/Berlin', locale: 'de-DE' },
      'Gate closes',
      'Ends at 14:30 · Boarding',
      false,
    ],
    [
      'timer without a zone says UTC',
      push({ template: 'timer', fields: { title: 'Gate closes', endsAt: '2026-05-01T12:30:00.000Z' } }),
      nowhere,
      'Gate closes',
      'Ends at 12:30 UTC',
      false,
    ],
    [
      'score',
      push({
        template: 'score',
        fields: {
          title: 'Final',
          home: { name: 'Ajax', score: 2 },
          away: { name: 'PSV', score: 1 },
          period: '2nd half',
        },
        alert: { title: 'Goal!' },
      }),
      nowhere,
      'Final',
      'Goal!\nAjax 2 – 1 PSV (2nd half)',
      true,
    ],
    [
      'steps',
      push({ template: 'steps', fields: { title: 'Delivery', currentStep: 2, totalSteps: 4, status: 'On the way' } }),
      nowhere,
      'Delivery',
      '▓▓▓▓▓░░░░░\nStep 2 of 4 · On the way',
      false,
    ],
    [
      'metrics, each with its unit and trend, then the status',
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
      }),
      nowhere,
      'api-1',
      'CPU 72 % ↑ · Errors 3 · Packing',
      false,
    ],
    [
      'status error: a red mark, the state and the message',
      push({ template: 'status', fields: { title: 'db-2', state: 'error', message: 'Disk full on db-2' } }),
      nowhere,
      'db-2',
      '🔴 Error · Disk full on db-2',
      false,
    ],
    [
      'status warning with an alert',
      push({
        template: 'status',
        fields: { title: 'db-2', state: 'warning', message: 'Disk 91 %' },
        alert: { title: 'Disk filling up' },
      }),
      nowhere,
      'db-2',
      'Disk filling up\n🟠 Warning · Disk 91 %',
      true,
    ],
    [
      'status ok, ended',
      push({ template: 'status', event: 'end', fields: { title: 'db-2', state: 'ok' } }),
      nowhere,
      'db-2',
      '🟢 OK\nEnded',
      false,
    ],
    [
      'status pending',
      push({ template: 'status', fields: { title: 'db-2', state: 'pending', message: 'Failing over' } }),
      nowhere,
      'db-2',
      '⚪ Pending · Failing over',
      false,
    ],
  ] as const)('%s', (_what, event, place, title, body, alerting) => {
    // What the browser receives, built by the notification path's own Web Push message builder: a declarative
    // message with the instance's address to open (an activity has no url of its own).
    const message = buildWebPushMessage(webLiveActivityContent(event, place), 'https://push.example.com');
    expect(message).toEqual({
      web_push: 8030,
      notification: {
        title,
        body,
        navigate: 'https://push.example.com',
        tag: event.activityId,
        data: {
          clarion: true,
          url: null,
          data: expect.objectContaining({
            clarion: 'live_activity',
            event: event.event,
            activityId: event.activityId,
            template: event.template,
            timestamp: String(event.timestamp),
            alerting: String(alerting),
          }),
        },
      },
      mutable: true,
    });
  });

  it('leaves out the default start alert, which only repeats the state', () => {
    const fields = { title: 'Order #42', progress: 0.45, status: 'Packing' };
    const start = push({ event: 'start', fields, alert: { title: 'Order #42', body: '45 % · Packing' } });
    expect(webLiveActivityContent(start, nowhere).body).toBe('▓▓▓▓▓░░░░░\n45 % · Packing');
    expect(webLiveActivityContent(start, nowhere).data?.alerting).toBe('true');
  });

  it("carries a timer's end for the notification's time", () => {
    const content = webLiveActivityContent(
      push({ template: 'timer', fields: { title: 'T', endsAt: '2026-05-01T12:30:00.000Z' } }),
      nowhere,
    );
    expect(content.data?.endsAt).toBe('2026-05-01T12:30:00.000Z');
    expect(webLiveActivityContent(push({}), nowhere).data?.endsAt).toBeUndefined();
  });

  it('is carried until the activity can no longer change, urgent only when it alerts, one Topic per activity', () => {
    expect(buildWebPushHeaders(webLiveActivityContent(push({}), nowhere), START + 3600_000)).toMatchObject({
      ttl: String(7 * 3600),
      urgency: 'normal',
      topic: 'lva_01hx0000000000000000000000',
    });
    expect(buildWebPushHeaders(webLiveActivityContent(push({ alert: { title: 'Now' } }), nowhere), START).urgency).toBe(
      'high',
    );
  });

  it("follows the caller's priority over the alert rule, as APNs does", () => {
    expect(buildWebPushHeaders(webLiveActivityContent(push({ priority: 'high' }), nowhere), START).urgency).toBe(
      'high',
    );
    expect(
      buildWebPushHeaders(webLiveActivityContent(push({ alert: { title: 'Now' }, priority: 'low' }), nowhere), START)
        .urgency,
    ).toBe('normal');
  });

  it('carries the end for a day from the end, under a Topic of its own, whenever it is sent', () => {
    const expiry = START + 8 * 3600_000;
    const atExpiry = push({ event: 'end', timestamp: expiry });
    const headers = buildWebPushHeaders(webLiveActivityContent(atExpiry, nowhere), expiry);
    expect(headers.ttl).toBe(String(END_LIFETIME_MS / 1000));
    expect(headers.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(headers.topic).not.toBe(atExpiry.activityId);
    // A minute before the 8 hours, retried an hour later: what is left of its day.
    const early = push({ event: 'end', timestamp: expiry - 60_000 });
    expect(buildWebPushHeaders(webLiveActivityContent(early, nowhere), expiry + 3600_000 - 60_000).ttl).toBe(
      String(END_LIFETIME_MS / 1000 - 3600),
    );
    // The tag stays the activity id: the end replaces the notification the browser shows.
    expect(
      buildWebPushMessage(webLiveActivityContent(atExpiry, nowhere), 'https://push.example.com').notification.tag,
    ).toBe(atExpiry.activityId);
  });
});
