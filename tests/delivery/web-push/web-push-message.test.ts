import { describe, expect, it } from 'vitest';
import type { PushContent } from '../../../src/delivery/push-content.ts';
import { encryptedWebPushBytes, encryptWebPush } from '../../../src/delivery/web-push/web-push-encryption.ts';
import { buildWebPushHeaders, webPushTopic, webPushTtl } from '../../../src/delivery/web-push/web-push-message.ts';
import { mapWebPushResponse } from '../../../src/delivery/web-push/web-push-response.ts';
import { createSimulatedBrowser } from '../../../tools/fakes/index.ts';

const NOW = 1_800_000_000_000;
const content: PushContent = { notificationId: 'ntf_01jz8k3m9q2w4e6r8t0y2u4i6o', title: 'T', body: null, url: null, data: null, imageUrl: null, iconUrl: null, sound: null, badge: null, priority: 'high', ttlSeconds: 600 };

describe('Web Push request headers (RFC 8030)', () => {
  it('TTL, Urgency, Topic, Content-Encoding', () => {
    expect(buildWebPushHeaders({ ...content, expiresAt: NOW + 600_000 }, NOW)).toEqual({
      ttl: '600',
      urgency: 'high',
      topic: 'ntf_01jz8k3m9q2w4e6r8t0y2u4i6o',
      'content-encoding': 'aes128gcm',
      'content-type': 'application/octet-stream',
    });
    expect(buildWebPushHeaders({ ...content, priority: 'normal' }, NOW).urgency).toBe('normal');
  });

  it.each([
    ['ttl 0: now or never', 0, null, 0],
    ['counted from the due time: what is left', 600, NOW + 250_500, 251],
    ['past its expiry: at least 1 (the engine does not send it)', 600, NOW - 5_000, 1],
    ['no due time: the ttl', 600, null, 600],
    ['no ttl: 28 days', null, null, 2_419_200],
  ])('TTL: %s', (_what, ttlSeconds, expiresAt, ttl) => {
    expect(webPushTtl(ttlSeconds, NOW, expiresAt)).toBe(ttl);
  });

  it('Topic: the id when it fits 32 base64url characters, else 32 characters of its hash', () => {
    expect(webPushTopic('ntf_01jz8k3m9q2w4e6r8t0y2u4i6o')).toBe('ntf_01jz8k3m9q2w4e6r8t0y2u4i6o');
    const long = webPushTopic('x'.repeat(40));
    expect(long).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(webPushTopic('x'.repeat(41))).not.toBe(long);
  });
});

describe('Web Push encrypted size', () => {
  it.each([0, 1, 100, 3993])('a %i-byte message encrypts to exactly encryptedWebPushBytes()', (size) => {
    const browser = createSimulatedBrowser();
    expect(encryptWebPush(Buffer.alloc(size, 'a'), browser).length).toBe(encryptedWebPushBytes(size));
  });

  it('3,993 bytes of clear text is the most a 4,096-byte body holds', () => {
    expect(encryptedWebPushBytes(3993)).toBe(4096);
  });
});

describe('push service answer → outcome', () => {
  it.each([
    [201, null, { kind: 'delivered' }],
    [202, null, { kind: 'delivered' }],
    [404, null, { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'web-push:404' }],
    [410, null, { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'web-push:410' }],
    [400, null, { kind: 'token_dead', reason: 'token_invalid', providerReason: 'web-push:400' }],
    [401, null, { kind: 'token_dead', reason: 'token_invalid', providerReason: 'web-push:401' }],
    [403, null, { kind: 'token_dead', reason: 'token_invalid', providerReason: 'web-push:403' }],
    [413, null, { kind: 'rejected', reason: 'web-push:413' }],
    [429, 30_000, { kind: 'retry', reason: 'web-push:429', retryAfterMs: 30_000 }],
    [503, null, { kind: 'retry', reason: 'web-push:503', retryAfterMs: null }],
    [301, null, { kind: 'rejected', reason: 'web-push:301' }],
    [418, null, { kind: 'rejected', reason: 'web-push:418' }],
  ])('%i → %o', (status, retryAfterMs, outcome) => {
    expect(mapWebPushResponse(status, retryAfterMs)).toEqual(outcome);
  });
});
