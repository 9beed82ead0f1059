import { describe, expect, it } from 'vitest';
import { blankContent } from '../../../src/domain/notification-content.ts';
import type { PushContent } from '../../../src/delivery/push-content.ts';
import { encryptedWebPushBytes, encryptWebPush } from '../../../src/delivery/web-push/web-push-encryption.ts';
import {
  buildWebPushHeaders,
  buildWebPushMessage,
  serializeWebPushMessage,
  webPushTopic,
  webPushTtl,
} from '../../../src/delivery/web-push/web-push-message.ts';
import { mapWebPushResponse } from '../../../src/delivery/web-push/web-push-response.ts';
import { createSimulatedBrowser, parseDeclarativePushMessage } from '../../../tools/fakes/index.ts';

const NOW = 1_800_000_000_000;
const content: PushContent = {
  ...blankContent,
  notificationId: 'ntf_01jz8k3m9q2w4e6r8t0y2u4i6o',
  title: 'T',
  body: null,
  ttlSeconds: 600,
};

const BASE_URL = 'https://push.example.com';

describe('the message: a declarative push message (W3C Push API; Safari 18.4+ shows it without a service worker)', () => {
  it('carries every field a notification has, where the format puts it', () => {
    const full: PushContent = {
      ...content,
      title: 'Order shipped',
      body: 'Your parcel is on its way',
      url: 'https://shop.example/orders/42',
      imageUrl: 'https://shop.example/parcel.png',
      iconUrl: 'https://shop.example/icon-192.png',
      badge: 3,
      data: { orderId: '42' },
    };
    const message = buildWebPushMessage(full, BASE_URL);
    expect(message).toEqual({
      web_push: 8030,
      notification: {
        title: 'Order shipped',
        body: 'Your parcel is on its way',
        navigate: 'https://shop.example/orders/42',
        tag: content.notificationId,
        image: 'https://shop.example/parcel.png',
        icon: 'https://shop.example/icon-192.png',
        data: { clarion: true, data: { orderId: '42' } },
      },
      app_badge: 3,
      mutable: true,
    });
    expect(parseDeclarativePushMessage(message)).toMatchObject({ kind: 'declarative', message: { appBadge: 3 } });
  });

  it("carries action buttons, each with the navigate URL the format requires: its own url, else the notification's", () => {
    const message = buildWebPushMessage(
      {
        ...content,
        title: 'Deploy v42?',
        url: 'https://ci.example/deploys/42',
        actions: [
          { id: 'approve', title: 'Approve' },
          { id: 'logs', title: 'Logs', url: 'https://ci.example/deploys/42/logs' },
        ],
      },
      BASE_URL,
    );
    expect(message.notification.actions).toEqual([
      { action: 'approve', title: 'Approve', navigate: 'https://ci.example/deploys/42' },
      { action: 'logs', title: 'Logs', navigate: 'https://ci.example/deploys/42/logs' },
    ]);
    // The service worker opens only a button's own url: "approve" opens nothing, it reports.
    expect(message.notification.data).toEqual({
      clarion: true,
      actionUrls: { logs: 'https://ci.example/deploys/42/logs' },
    });
    expect(parseDeclarativePushMessage(message)).toMatchObject({ kind: 'declarative' });
  });

  it('always has the title and the page to open the format requires: "" and the instance\'s address when unset', () => {
    const bare: PushContent = { ...content, title: null };
    const message = buildWebPushMessage(bare, BASE_URL);
    expect(message).toEqual({
      web_push: 8030,
      notification: { title: '', navigate: BASE_URL, tag: content.notificationId, data: { clarion: true, url: null } },
      mutable: true,
    });
    expect(parseDeclarativePushMessage(message).kind).toBe('declarative');
    expect(JSON.parse(serializeWebPushMessage(bare, BASE_URL).toString('utf8'))).toEqual(message);
  });
});

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
  const autopush = (code: number, errno: number) =>
    JSON.stringify({ code, errno, error: 'Error', message: 'as autopush documents' });
  it.each([
    [201, null, '', { kind: 'delivered' }],
    [202, null, '', { kind: 'delivered' }],
    [404, null, '', { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'web-push:404' }],
    [410, null, '', { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'web-push:410' }],
    [
      410,
      null,
      autopush(410, 103),
      { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'web-push:410:errno103' },
    ],
    // 400/401/403 are the request's or our signature's fault: refused, never a dead subscription.
    [400, null, '', { kind: 'rejected', reason: 'web-push:400' }],
    [400, null, autopush(400, 112), { kind: 'rejected', reason: 'web-push:400:errno112' }],
    [401, null, autopush(401, 109), { kind: 'rejected', reason: 'web-push:401:errno109' }],
    [403, null, '', { kind: 'rejected', reason: 'web-push:403' }],
    [403, null, '{"reason":"BadJwtToken"}', { kind: 'rejected', reason: 'web-push:403:BadJwtToken' }],
    [403, null, 'the key is not valid', { kind: 'rejected', reason: 'web-push:403' }],
    // …unless the body names the subscription as gone.
    [
      400,
      null,
      autopush(400, 102),
      { kind: 'token_dead', reason: 'token_invalid', providerReason: 'web-push:400:errno102' },
    ],
    [
      403,
      null,
      autopush(403, 106),
      { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'web-push:403:errno106' },
    ],
    [413, null, autopush(413, 104), { kind: 'rejected', reason: 'web-push:413:errno104' }],
    [429, 30_000, '', { kind: 'retry', reason: 'web-push:429', retryAfterMs: 30_000 }],
    [503, null, autopush(503, 202), { kind: 'retry', reason: 'web-push:503:errno202', retryAfterMs: null }],
    [301, null, '', { kind: 'rejected', reason: 'web-push:301' }],
    [418, null, '', { kind: 'rejected', reason: 'web-push:418' }],
    // Only a short word or a number is taken from the answer: never free text, nor JSON cut off at the excerpt.
    [403, null, '{"reason":"has spaces in it"}', { kind: 'rejected', reason: 'web-push:403' }],
    [403, null, '{"reason":"BadJwt', { kind: 'rejected', reason: 'web-push:403' }],
    [403, null, '{"errno":"109"}', { kind: 'rejected', reason: 'web-push:403' }],
  ])('%i %s → %o', (status, retryAfterMs, answer, outcome) => {
    expect(mapWebPushResponse(status, retryAfterMs, answer)).toEqual(outcome);
  });
});
