import { SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVapidKeyPair } from '../../src/delivery/web-push/vapid-keys.ts';
import { parseDeclarativePushMessage } from '../../tools/fakes/index.ts';
import { VAPID, webPushFixture, type WebPushFixture } from './web-push-fixture.ts';

let f: WebPushFixture;
beforeAll(async () => {
  f = await webPushFixture();
});
afterAll(async () => f.close());

/** A VAPID header with chosen claims, signed by `keys` (the fixture's VAPID pair by default). */
async function vapidHeader(claims: Record<string, unknown>, keys = VAPID, k = keys.publicKey): Promise<string> {
  const point = Buffer.from(keys.publicKey, 'base64url');
  const key = createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: keys.privateKey,
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const token = await new SignJWT(claims).setProtectedHeader({ typ: 'JWT', alg: 'ES256' }).sign(key);
  return `vapid t=${token}, k=${k}`;
}
const nowSeconds = () => Math.floor(f.clock.now() / 1000);

describe('fake Web Push service: a valid message', () => {
  it('answers 201 with Location and TTL, and records the clear text the service worker would read', async () => {
    const subscription = f.fake.subscribe({ applicationServerKey: VAPID.publicKey });
    expect(subscription.json).toEqual({
      endpoint: subscription.endpoint,
      expirationTime: null,
      keys: { p256dh: expect.stringMatching(/^[\w-]{87}$/), auth: expect.stringMatching(/^[\w-]{22}$/) },
    });
    const answer = await f.push(
      subscription,
      JSON.stringify({ title: 'Hello', body: 'World', url: 'https://example.com/a' }),
      { headers: { urgency: 'high', topic: 'ntf_abc-123' } },
    );
    expect(answer.status).toBe(201);
    expect(answer.headers.location).toMatch(new RegExp(`^${f.fake.url}/message/`));
    expect(answer.headers.ttl).toBe('60');
    const record = await f.fake.waitForMessage((message) => message.subscriptionId === subscription.id);
    expect(record).toMatchObject({
      status: 201,
      ttl: 60,
      urgency: 'high',
      topic: 'ntf_abc-123',
      vapid: { aud: f.fake.url, sub: 'mailto:ops@example.com' },
      vapidPublicKey: VAPID.publicKey,
      message: { title: 'Hello', body: 'World', url: 'https://example.com/a' },
      // No web_push member: a browser hands it to the service worker.
      declarative: { kind: 'classic' },
      decryptError: null,
    });
  });

  it('records a body that does not decrypt, but accepts it as a real service would (it cannot tell)', async () => {
    const subscription = f.fake.subscribe();
    const other = f.fake.subscribe();
    const sealedForOther = (await import('../../src/delivery/web-push/web-push-encryption.ts')).encryptWebPush(
      Buffer.from('{}'),
      other.json.keys,
    );
    expect((await f.push(subscription, sealedForOther)).status).toBe(201);
    const record = await f.fake.waitForMessage((message) => message.subscriptionId === subscription.id);
    expect(record.clearText).toBeNull();
    expect(record.decryptError).toMatch(/does not decrypt/);
  });
});

describe('fake Web Push service: refusals', () => {
  it.each([
    ['no TTL', { ttl: undefined }, 400, /TTL header is required/],
    ['a negative TTL', { ttl: '-1' }, 400, /TTL must be/],
    ['an unknown Urgency', { urgency: 'urgent' }, 400, /Urgency must be/],
    ['a Topic over 32 characters', { topic: 'a'.repeat(33) }, 400, /Topic must be/],
    ['a Topic outside base64url', { topic: 'a+b' }, 400, /Topic must be/],
    ['the old aesgcm encoding', { 'content-encoding': 'aesgcm' }, 400, /Content-Encoding must be aes128gcm/],
    ['no Authorization', { authorization: undefined }, 401, /missing Authorization/],
    ['a WebPush scheme', { authorization: 'WebPush abc' }, 401, /missing Authorization/],
  ])('%s → %i', async (_what, headers, status, reason) => {
    const subscription = f.fake.subscribe();
    expect((await f.push(subscription, '{}', { headers })).status).toBe(status);
    expect((await f.fake.waitForMessage((message) => message.subscriptionId === subscription.id)).reason).toMatch(
      reason,
    );
  });

  it.each([
    [
      'aud another origin',
      () => vapidHeader({ aud: 'https://push.example.net', exp: nowSeconds() + 3600, sub: 'mailto:a@b.c' }),
      /aud must be/,
    ],
    ['exp in the past', () => vapidHeader({ aud: f.fake.url, exp: nowSeconds() - 1, sub: 'mailto:a@b.c' }), /expired/],
    [
      'exp over 24 h ahead',
      () => vapidHeader({ aud: f.fake.url, exp: nowSeconds() + 24 * 3600 + 60, sub: 'mailto:a@b.c' }),
      /24 hours/,
    ],
    ['no sub', () => vapidHeader({ aud: f.fake.url, exp: nowSeconds() + 3600 }), /sub must be/],
    [
      'an http: sub',
      () => vapidHeader({ aud: f.fake.url, exp: nowSeconds() + 3600, sub: 'http://example.com' }),
      /sub must be/,
    ],
    [
      'a signature by another key than k',
      () =>
        vapidHeader(
          { aud: f.fake.url, exp: nowSeconds() + 3600, sub: 'mailto:a@b.c' },
          VAPID,
          generateVapidKeyPair().publicKey,
        ),
      /not signed by k/,
    ],
  ])('VAPID with %s → 403', async (_what, header, reason) => {
    const subscription = f.fake.subscribe();
    expect((await f.push(subscription, '{}', { headers: { authorization: await header() } })).status).toBe(403);
    expect((await f.fake.waitForMessage((message) => message.subscriptionId === subscription.id)).reason).toMatch(
      reason,
    );
  });

  it('a subscription made with another applicationServerKey → 403 (the VAPID key changed)', async () => {
    const subscription = f.fake.subscribe({ applicationServerKey: generateVapidKeyPair().publicKey });
    expect((await f.push(subscription, '{}')).status).toBe(403);
    expect((await f.fake.waitForMessage((message) => message.subscriptionId === subscription.id)).reason).toMatch(
      /not the applicationServerKey/,
    );
  });

  it('a body over 4,096 bytes → 413; exactly 4,096 is taken', async () => {
    const subscription = f.fake.subscribe();
    expect((await f.push(subscription, Buffer.alloc(4097))).status).toBe(413);
    expect((await f.push(subscription, Buffer.alloc(4096))).status).toBe(201);
  });

  it('gone subscriptions: 410 by default, 404 when asked, 404 for one never made; GET → 405', async () => {
    const gone = f.fake.subscribe();
    f.fake.expire(gone.id);
    expect((await f.push(gone, '{}')).status).toBe(410);
    const expired = f.fake.subscribe();
    f.fake.expire(expired.id, 404);
    expect((await f.push(expired, '{}')).status).toBe(404);
    expect((await f.push(gone, '{}', { path: '/push/never-made' })).status).toBe(404);
    const live = f.fake.subscribe();
    expect((await f.push(live, '{}', { method: 'GET' })).status).toBe(405);
  });

  it('injected: 429 with Retry-After for the next messages, and a chosen status for one subscription', async () => {
    const subscription = f.fake.subscribe();
    f.fake.failNext(2, { status: 429, retryAfterSeconds: 30 });
    const first = await f.push(subscription, '{}');
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('30');
    expect((await f.push(subscription, '{}')).status).toBe(429);
    expect((await f.push(subscription, '{}')).status).toBe(201);
    f.fake.setSubscriptionOutcome(subscription.id, { status: 503 });
    expect((await f.push(subscription, '{}')).status).toBe(503);
    // A malformed message is still refused for what it is, never hidden behind chaos.
    expect((await f.push(subscription, '{}', { headers: { ttl: undefined } })).status).toBe(400);
    f.fake.setSubscriptionOutcome(subscription.id, null);
    expect((await f.push(subscription, '{}')).status).toBe(201);
  });
});

describe('fake Web Push service: error bodies', () => {
  it("answers refusals with autopush's JSON and its errno (generic service)", async () => {
    const subscription = f.fake.subscribe({ applicationServerKey: VAPID.publicKey });
    const noTtl = await f.push(subscription, '{}', { headers: { ttl: undefined } });
    expect(noTtl.headers['content-type']).toBe('application/json');
    expect(JSON.parse(noTtl.body)).toEqual({
      code: 400,
      errno: 111,
      error: 'Bad Request',
      message: 'TTL header is required',
    });
    const wrongKey = f.fake.subscribe({ applicationServerKey: generateVapidKeyPair().publicKey });
    expect(JSON.parse((await f.push(wrongKey, '{}')).body)).toMatchObject({ code: 403, errno: 109 });
    const gone = f.fake.subscribe();
    f.fake.expire(gone.id);
    expect(JSON.parse((await f.push(gone, '{}')).body)).toMatchObject({ code: 410, errno: 103 });
    f.fake.setSubscriptionOutcome(subscription.id, { status: 400, body: { code: 400, errno: 102 } });
    expect(JSON.parse((await f.push(subscription, '{}')).body)).toEqual({ code: 400, errno: 102 });
    f.fake.setSubscriptionOutcome(subscription.id, null);
  });

  it("takes a subject with spaces and angle brackets, or on localhost, as long as it starts with mailto: (as Chrome's service does)", async () => {
    for (const sub of ['mailto: <admin@example.com>', 'mailto:webpush@localhost']) {
      const subscription = f.fake.subscribe();
      expect(
        (
          await f.push(subscription, '{}', {
            headers: { authorization: await vapidHeader({ aud: f.fake.url, exp: nowSeconds() + 3600, sub }) },
          })
        ).status,
      ).toBe(201);
    }
  });
});

describe("fake Web Push service as Apple's", () => {
  let apple: WebPushFixture;
  beforeAll(async () => {
    apple = await webPushFixture('apple');
  });
  afterAll(async () => apple.close());
  const header = (sub: string) =>
    vapidHeader({ aud: apple.fake.url, exp: Math.floor(apple.clock.now() / 1000) + 3600, sub });

  it.each([
    ['spaces and angle brackets', 'mailto: <admin@example.com>', /whitespace or angle brackets/],
    ['a localhost mailto', 'mailto:webpush@localhost', /not localhost/],
    ['a localhost https URL', 'https://localhost:3000', /not localhost/],
    ['a loopback address', 'mailto:ops@127.0.0.1', /not 127\.0\.0\.1/],
  ])('refuses a subject with %s: 403 {"reason":"BadJwtToken"}', async (_what, sub, reason) => {
    const subscription = apple.fake.subscribe({ applicationServerKey: VAPID.publicKey });
    const answer = await apple.push(subscription, '{}', { headers: { authorization: await header(sub) } });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({ reason: 'BadJwtToken' });
    expect((await apple.fake.waitForMessage((message) => message.subscriptionId === subscription.id)).reason).toMatch(
      reason,
    );
  });

  it('answers every refused JWT with 403 BadJwtToken, a missing one included, and takes a good subject', async () => {
    const subscription = apple.fake.subscribe({ applicationServerKey: VAPID.publicKey });
    const missing = await apple.push(subscription, '{}', { headers: { authorization: undefined } });
    expect([missing.status, JSON.parse(missing.body)]).toEqual([403, { reason: 'BadJwtToken' }]);
    const wrongKey = apple.fake.subscribe({ applicationServerKey: generateVapidKeyPair().publicKey });
    expect(JSON.parse((await apple.push(wrongKey, '{}')).body)).toEqual({ reason: 'BadJwtToken' });
    expect(
      (await apple.push(subscription, '{}', { headers: { authorization: await header('mailto:ops@example.com') } }))
        .status,
    ).toBe(201);
    expect(
      (await apple.push(subscription, '{}', { headers: { authorization: await header('https://push.example.com') } }))
        .status,
    ).toBe(201);
  });
});

describe('fake Web Push service: a browser offline (RFC 8030 §5.2 TTL, §5.4 Topic)', () => {
  const text = (message: { clearText: string | null }) => message.clearText;

  it('an online browser receives every accepted message at once', async () => {
    const subscription = f.fake.subscribe();
    await f.push(subscription, 'one');
    await f.push(subscription, 'two', { headers: { ttl: '0' } });
    expect(f.fake.received(subscription.id).map(text)).toEqual(['one', 'two']);
  });

  it('holds messages for an offline browser until their TTL runs out; one with the same Topic replaces a held one; TTL 0 is not held', async () => {
    const subscription = f.fake.subscribe();
    f.fake.setOnline(subscription.id, false);
    await f.push(subscription, 'first update', { headers: { topic: 'activity', ttl: '3600' } });
    await f.push(subscription, 'second update', { headers: { topic: 'activity', ttl: '3600' } });
    await f.push(subscription, 'short-lived', { headers: { ttl: '60' } });
    await f.push(subscription, 'now or never', { headers: { ttl: '0' } });
    await f.push(subscription, 'ending', { headers: { topic: 'activity-end', ttl: '7200' } });
    expect(f.fake.received(subscription.id)).toEqual([]);
    f.clock.advance(61_000);
    f.fake.setOnline(subscription.id, true);
    expect(f.fake.received(subscription.id).map(text)).toEqual(['second update', 'ending']);
  });

  it('a browser back after every TTL ran out receives nothing', async () => {
    const subscription = f.fake.subscribe();
    f.fake.setOnline(subscription.id, false);
    await f.push(subscription, 'gone by then', { headers: { ttl: '1' } });
    f.clock.advance(2_000);
    f.fake.setOnline(subscription.id, true);
    expect(f.fake.received(subscription.id)).toEqual([]);
  });
});

describe("the simulated browser's reading of a declarative push message (W3C Push API; WebKit)", () => {
  const valid = {
    web_push: 8030,
    notification: { title: 'T', navigate: 'https://example.com/a', tag: 'x', renotify: true },
    app_badge: 2,
    mutable: true,
  };

  it('reads a valid one, and leaves anything without web_push 8030 to the service worker', () => {
    expect(parseDeclarativePushMessage(valid)).toEqual({
      kind: 'declarative',
      message: { notification: valid.notification, appBadge: 2, mutable: true },
    });
    for (const classic of [{ title: 'T' }, { ...valid, web_push: 8031 }, 'text', null, [valid]])
      expect(parseDeclarativePushMessage(classic)).toEqual({ kind: 'classic' });
  });

  it.each([
    ['no notification', { web_push: 8030 }, 'notification must be an object'],
    ['no title', { web_push: 8030, notification: { navigate: 'https://example.com' } }, 'title'],
    ['a null title', { ...valid, notification: { ...valid.notification, title: null } }, 'title'],
    ['no navigate', { web_push: 8030, notification: { title: 'T' } }, 'navigate'],
    ['a navigate that is no URL', { ...valid, notification: { ...valid.notification, navigate: '/a' } }, 'navigate'],
    ['a body that is not text', { ...valid, notification: { ...valid.notification, body: 3 } }, 'body'],
    ['an icon that is no URL', { ...valid, notification: { ...valid.notification, icon: 'icon.png' } }, 'icon'],
    [
      'renotify without a tag',
      { ...valid, notification: { title: 'T', navigate: 'https://e.x', renotify: true } },
      'tag',
    ],
    ['a negative app badge', { ...valid, app_badge: -1 }, 'app_badge'],
    ['a badge count as text', { ...valid, app_badge: '3' }, 'app_badge'],
    ['mutable as text', { ...valid, mutable: 'yes' }, 'mutable'],
  ])('refuses %s', (_what, message, problem) => {
    const parsed = parseDeclarativePushMessage(message);
    expect(parsed.kind).toBe('invalid');
    expect((parsed as { problem: string }).problem).toContain(problem);
  });
});
