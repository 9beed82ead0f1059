import { describe, expect, it } from 'vitest';
import { blankContent } from '../../../src/domain/notification-content.ts';
import type { PushContent } from '../../../src/delivery/push-content.ts';
import {
  FCM_MAX_PAYLOAD_BYTES,
  buildFcmDataMessage,
  buildFcmMessage,
  fcmPayloadBytes,
} from '../../../src/delivery/fcm/fcm-message.ts';

function content(overrides: Partial<PushContent> = {}): PushContent {
  return {
    ...blankContent,
    notificationId: 'ntf_01jf3z5y8k9q2w4e6r8t0y2u4i',
    title: 'Gate change',
    body: 'LH 454 boards at B12',
    ...overrides,
  };
}

const TAG = 'ntf_01jf3z5y8k9q2w4e6r8t0y2u4i';

describe('buildFcmMessage', () => {
  it.each<[string, Partial<PushContent>, Record<string, unknown>]>([
    [
      'title and body, high priority, no ttl',
      {},
      {
        token: 'tok',
        notification: { title: 'Gate change', body: 'LH 454 boards at B12' },
        android: { priority: 'HIGH', notification: { tag: TAG } },
      },
    ],
    ['normal priority', { priority: 'normal' }, { android: { priority: 'NORMAL', notification: { tag: TAG } } }],
    [
      // FCM's AndroidNotification.channel_id; the iOS options have no Android counterpart and are left out.
      "the app's notification channel",
      { androidChannelId: 'gates', subtitle: 'Now boarding', interruptionLevel: 'passive', relevanceScore: 0.2 },
      {
        notification: { title: 'Gate change', body: 'LH 454 boards at B12' },
        android: { priority: 'HIGH', notification: { tag: TAG, channel_id: 'gates' } },
      },
    ],
    ['ttl 0 → "0s"', { ttlSeconds: 0 }, { android: { priority: 'HIGH', ttl: '0s', notification: { tag: TAG } } }],
    [
      'ttl 3600 → "3600s"',
      { ttlSeconds: 3600 },
      { android: { priority: 'HIGH', ttl: '3600s', notification: { tag: TAG } } },
    ],
    [
      'ttl over 4 weeks capped',
      { ttlSeconds: 90 * 86_400 },
      { android: { priority: 'HIGH', ttl: '2419200s', notification: { tag: TAG } } },
    ],
    [
      'image',
      { imageUrl: 'https://example.com/i.png' },
      { notification: { title: 'Gate change', body: 'LH 454 boards at B12', image: 'https://example.com/i.png' } },
    ],
    [
      'sound and badge',
      { sound: 'default', badge: 4 },
      { android: { priority: 'HIGH', notification: { tag: TAG, sound: 'default', notification_count: 4 } } },
    ],
    ['url in data', { url: 'https://example.com/f' }, { data: { url: 'https://example.com/f' } }],
    [
      'caller data plus url, url wins',
      { url: 'https://example.com/f', data: { url: 'x', flight: 'LH454' } },
      { data: { url: 'https://example.com/f', flight: 'LH454' } },
    ],
    [
      'action buttons: their JSON in data, for the app to add to the notification it shows',
      {
        actions: [
          { id: 'approve', title: 'Approve' },
          { id: 'logs', title: 'Logs', url: 'https://ci.example/42' },
        ],
      },
      {
        notification: { title: 'Gate change' },
        data: {
          clarionActions:
            '[{"id":"approve","title":"Approve"},{"id":"logs","title":"Logs","url":"https://ci.example/42"}]',
        },
      },
    ],
    [
      'reserved data keys dropped',
      { data: { from: 'x', google_x: 'y', gcm_z: 'z', message_type: 'm', ok: 'yes' } },
      { data: { ok: 'yes' } },
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(buildFcmMessage('tok', content(overrides)).message).toMatchObject(expected);
  });

  it('sends what is left of the TTL fixed from the due time, so a retry keeps the deadline', () => {
    const dueAt = 1_780_000_000_000;
    const expiring = content({ ttlSeconds: 60, expiresAt: dueAt + 60_000 });
    expect(buildFcmMessage('tok', expiring, { now: dueAt }).message.android?.ttl).toBe('60s');
    expect(buildFcmMessage('tok', expiring, { now: dueAt + 45_000 }).message.android?.ttl).toBe('15s');
    expect(buildFcmMessage('tok', expiring, { now: dueAt + 44_500 }).message.android?.ttl).toBe('16s');
    expect(
      buildFcmMessage('tok', content({ ttlSeconds: 0, expiresAt: dueAt }), { now: dueAt + 5_000 }).message.android?.ttl,
    ).toBe('0s');
    expect(() => buildFcmMessage('tok', expiring)).toThrow(/options.now/);
    expect(fcmPayloadBytes(expiring)).toBe(fcmPayloadBytes(content({ ttlSeconds: 60 })));
  });

  it('has no notification block and no data without text or data', () => {
    const { message } = buildFcmMessage('tok', content({ title: null, body: null }));
    expect(message).not.toHaveProperty('notification');
    expect(message).not.toHaveProperty('data');
    expect(message).not.toHaveProperty('apns');
    expect(message).not.toHaveProperty('webpush');
  });

  it('makes a silent push a data-only message: no notification block, the priority asked for', () => {
    const silent = content({
      title: null,
      body: null,
      contentAvailable: true,
      data: { sync: 'inbox' },
      priority: 'normal',
    });
    expect(buildFcmMessage('tok', { ...silent, ttlSeconds: 60 }).message).toEqual({
      token: 'tok',
      data: { sync: 'inbox' },
      android: { priority: 'NORMAL', ttl: '60s' },
    });
  });
});

describe('buildFcmDataMessage', () => {
  it('is data-only, HIGH by default, never collapsible, with the TTL left until its expiry', () => {
    expect(buildFcmDataMessage('tok', { progress: '0.5' })).toEqual({
      message: { token: 'tok', data: { progress: '0.5' }, android: { priority: 'HIGH' } },
    });
    expect(
      buildFcmDataMessage('tok', { a: 'b' }, { priority: 'normal', expiresAt: 1_060_500 }, 1_000_000).message.android,
    ).toEqual({ priority: 'NORMAL', ttl: '61s' });
    expect(() => buildFcmDataMessage('tok', {}, { expiresAt: 1 })).toThrow(/pass now with expiresAt/);
  });
});

describe('fcmPayloadBytes', () => {
  it('counts UTF-8 bytes of keys and values, not the token', () => {
    const small = content({ title: 'T', body: 'B', priority: 'high' });
    // notification{title:T, body:B} + android{priority:HIGH, notification{tag:<id>}}
    const expected =
      'notification'.length +
      'title'.length +
      1 +
      'body'.length +
      1 +
      'android'.length +
      'priority'.length +
      'HIGH'.length +
      'notification'.length +
      'tag'.length +
      TAG.length;
    expect(fcmPayloadBytes(small)).toBe(expected);
    expect(fcmPayloadBytes(content({ title: 'ü' }))).toBe(fcmPayloadBytes(content({ title: 'u' })) + 1);
  });

  it('grows with data entries by key plus value', () => {
    expect(fcmPayloadBytes(content({ data: { k: 'v' } }))).toBe(fcmPayloadBytes(content()) + 'data'.length + 2);
  });

  it('lets the API find the 4096-byte boundary', () => {
    const base = fcmPayloadBytes(content({ body: '' }));
    expect(fcmPayloadBytes(content({ body: 'x'.repeat(FCM_MAX_PAYLOAD_BYTES - base) }))).toBe(FCM_MAX_PAYLOAD_BYTES);
  });
});
