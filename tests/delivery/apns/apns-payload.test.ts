import { describe, expect, it } from 'vitest';
import {
  APNS_MAX_PAYLOAD_BYTES,
  apnsCollapseId,
  apnsExpiration,
  apnsPayloadBytes,
  buildApnsHeaders,
  buildApnsPayload,
  serializeApnsPayload,
} from '../../../src/delivery/apns/apns-payload.ts';
import { blankContent } from '../../../src/domain/notification-content.ts';
import type { PushContent } from '../../../src/delivery/push-content.ts';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW_S = NOW / 1000;

function content(overrides: Partial<PushContent> = {}): PushContent {
  return {
    ...blankContent,
    notificationId: 'ntf_01jf3z5y8k9q2w4e6r8t0y2u4i',
    title: 'Gate change',
    body: 'Flight LH 454 now boards at B12',
    ...overrides,
  };
}

describe('buildApnsPayload', () => {
  it.each<[string, Partial<PushContent>, { threadId?: string | null }, Record<string, unknown>]>([
    [
      'title and body only',
      {},
      {},
      { aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' } } },
    ],
    ['body only', { title: null }, {}, { aps: { alert: { body: 'Flight LH 454 now boards at B12' } } }],
    ['no text: no alert', { title: null, body: null, badge: 3 }, {}, { aps: { badge: 3 } }],
    [
      'sound and badge',
      { sound: 'default', badge: 0 },
      {},
      { aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' }, sound: 'default', badge: 0 } },
    ],
    [
      'thread id',
      {},
      { threadId: 'flights' },
      { aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' }, 'thread-id': 'flights' } },
    ],
    [
      // Apple's payload keys (https://developer.apple.com/documentation/usernotifications/generating-a-remote-notification).
      'alert options: subtitle, category, interruption level, relevance score, target content',
      {
        subtitle: 'Now boarding',
        category: 'GATE_CHANGE',
        interruptionLevel: 'time-sensitive',
        relevanceScore: 0.8,
        targetContentId: 'flights',
        androidChannelId: 'gates',
      },
      {},
      {
        aps: {
          alert: { title: 'Gate change', subtitle: 'Now boarding', body: 'Flight LH 454 now boards at B12' },
          category: 'GATE_CHANGE',
          'interruption-level': 'time-sensitive',
          'relevance-score': 0.8,
          'target-content-id': 'flights',
        },
      },
    ],
    [
      'null thread id',
      {},
      { threadId: null },
      { aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' } } },
    ],
    [
      'url as a custom key',
      { url: 'https://example.com/f/454' },
      {},
      {
        url: 'https://example.com/f/454',
        aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' } },
      },
    ],
    [
      'image: mutable-content and imageUrl',
      { imageUrl: 'https://example.com/i.png' },
      {},
      {
        imageUrl: 'https://example.com/i.png',
        aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' }, 'mutable-content': 1 },
      },
    ],
    [
      'data as custom keys',
      { data: { flight: 'LH454', gate: 'B12' } },
      {},
      {
        flight: 'LH454',
        gate: 'B12',
        aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' } },
      },
    ],
    [
      'data never overrides aps; url and imageUrl win over data',
      {
        data: { aps: 'evil', url: 'from-data', imageUrl: 'from-data' },
        url: 'https://example.com',
        imageUrl: 'https://example.com/i.png',
      },
      {},
      {
        url: 'https://example.com',
        imageUrl: 'https://example.com/i.png',
        aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' }, 'mutable-content': 1 },
      },
    ],
    [
      'action buttons: clarionActions beside aps, and mutable-content so the Notification Service Extension shows them',
      {
        actions: [
          { id: 'approve', title: 'Approve' },
          { id: 'logs', title: 'Logs', url: 'https://ci.example/42' },
        ],
        data: { clarionActions: 'from-data' },
      },
      {},
      {
        clarionActions: [
          { id: 'approve', title: 'Approve' },
          { id: 'logs', title: 'Logs', url: 'https://ci.example/42' },
        ],
        aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' }, 'mutable-content': 1 },
      },
    ],
    [
      'data url kept without a content url',
      { data: { url: 'from-data' } },
      {},
      { url: 'from-data', aps: { alert: { title: 'Gate change', body: 'Flight LH 454 now boards at B12' } } },
    ],
    [
      'a silent push: aps holds content-available alone (no thread id), the data and url beside it',
      { title: null, body: null, contentAvailable: true, data: { sync: 'inbox' }, url: 'https://example.com' },
      { threadId: 'flights' },
      { aps: { 'content-available': 1 }, sync: 'inbox', url: 'https://example.com' },
    ],
  ])('%s', (_name, overrides, options, expected) => {
    expect(buildApnsPayload(content(overrides), options)).toEqual(expected);
  });

  it('counts payload bytes as UTF-8 of the serialized JSON, thread id included', () => {
    const emoji = content({ title: '🚀 Launch', body: 'ü' });
    expect(apnsPayloadBytes(emoji)).toBe(Buffer.byteLength(serializeApnsPayload(emoji), 'utf8'));
    expect(apnsPayloadBytes(emoji)).toBeGreaterThan(serializeApnsPayload(emoji).length);
    expect(apnsPayloadBytes(content(), { threadId: 'flights' })).toBe(
      apnsPayloadBytes(content()) + ',"thread-id":"flights"'.length,
    );
  });

  it('lets the API find the 4096-byte boundary', () => {
    const base = apnsPayloadBytes(content({ body: '' }));
    expect(apnsPayloadBytes(content({ body: 'x'.repeat(APNS_MAX_PAYLOAD_BYTES - base) }))).toBe(APNS_MAX_PAYLOAD_BYTES);
    expect(apnsPayloadBytes(content({ body: 'x'.repeat(APNS_MAX_PAYLOAD_BYTES - base + 1) }))).toBe(
      APNS_MAX_PAYLOAD_BYTES + 1,
    );
  });
});

describe('buildApnsHeaders', () => {
  it('sets push type, topic, priority, collapse id and expiration', () => {
    expect(buildApnsHeaders(content({ ttlSeconds: 3600 }), { topic: 'com.example.app', now: NOW })).toEqual({
      'apns-push-type': 'alert',
      'apns-topic': 'com.example.app',
      'apns-priority': '10',
      'apns-collapse-id': 'ntf_01jf3z5y8k9q2w4e6r8t0y2u4i',
      'apns-expiration': String(NOW_S + 3600),
    });
  });

  it.each([
    ['high', '10'],
    ['normal', '5'],
  ] as const)('priority %s → apns-priority %s', (priority, header) => {
    expect(buildApnsHeaders(content({ priority }), { topic: 't', now: NOW })['apns-priority']).toBe(header);
  });

  it.each(['high', 'normal'] as const)('a silent push is a background push at priority 5 (priority %s)', (priority) => {
    const silent = content({ title: null, body: null, contentAvailable: true, priority });
    expect(buildApnsHeaders(silent, { topic: 't', now: NOW })).toMatchObject({
      'apns-push-type': 'background',
      'apns-priority': '5',
    });
  });
});

describe('apnsExpiration', () => {
  it.each<[number | null, string]>([
    [0, '0'],
    [1, String(NOW_S + 1)],
    [86_400, String(NOW_S + 86_400)],
    [null, String(NOW_S + 30 * 86_400)],
    [90 * 86_400, String(NOW_S + 30 * 86_400)],
    [2.7, String(NOW_S + 2)],
  ])('ttl %s → %s', (ttl, expected) => {
    expect(apnsExpiration(ttl, NOW + 999)).toBe(expected);
  });

  it('keeps the deadline fixed from the due time when a push is retried later', () => {
    // ttl 60 due at NOW, retried two hours later... (it is not sent then: push-expiry.ts); retried after 30 s, 30 s are left.
    const expiresAt = NOW + 60_000;
    expect(apnsExpiration(60, NOW + 30_000, expiresAt)).toBe(String(NOW_S + 60));
    expect(
      buildApnsHeaders(content({ ttlSeconds: 60, expiresAt }), { topic: 't', now: NOW + 30_000 })['apns-expiration'],
    ).toBe(String(NOW_S + 60));
    expect(apnsExpiration(60, NOW, NOW + 60_500)).toBe(String(NOW_S + 60));
    expect(apnsExpiration(60, NOW + 59_900, NOW + 60_000)).toBe(String(NOW_S + 60));
    expect(apnsExpiration(0, NOW + 30_000, NOW)).toBe('0');
    expect(apnsExpiration(90 * 86_400, NOW, NOW + 90 * 86_400_000)).toBe(String(NOW_S + 30 * 86_400));
  });
});

describe('apnsCollapseId', () => {
  it('uses the notification id when it fits in 64 bytes', () => {
    expect(apnsCollapseId('ntf_01jf3z5y8k9q2w4e6r8t0y2u4i')).toBe('ntf_01jf3z5y8k9q2w4e6r8t0y2u4i');
    expect(apnsCollapseId('x'.repeat(64))).toBe('x'.repeat(64));
  });

  it('hashes a longer id to exactly 64 bytes, distinct per id', () => {
    const a = apnsCollapseId('x'.repeat(65));
    const b = apnsCollapseId(`${'x'.repeat(64)}y`);
    expect(Buffer.byteLength(a)).toBe(64);
    expect(a).not.toBe(b);
  });
});
