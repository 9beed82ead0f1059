import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ApnsClient, apnsLiveActivityTopic, createApnsClient } from '../../../src/delivery/apns/apns-client.ts';
import { blankContent } from '../../../src/domain/notification-content.ts';
import type { PushContent } from '../../../src/delivery/push-content.ts';
import { ManualClock } from '../../../src/domain/clock.ts';
import { type FakeApns, createApnsSigningKey, startFakeApns } from '../../../tools/fakes/index.ts';
import { waitFor } from '../../harness/wait-for.ts';

const TOPIC = 'com.example.flights';
const MINUTE = 60_000;
const key = createApnsSigningKey();
const token = (n: number) => n.toString(16).padStart(64, '0');

const content: PushContent = {
  ...blankContent,
  notificationId: 'ntf_01jf3z5y8k9q2w4e6r8t0y2u4i',
  title: 'Gate change',
  body: 'LH 454 boards at B12',
  url: 'https://example.com/f/454',
  data: { flight: 'LH454' },
  sound: 'default',
  badge: 1,
  ttlSeconds: 3600,
};

let fake: FakeApns;
let fakeClock: ManualClock;
const clients: ApnsClient[] = [];

function client(overrides: Partial<Parameters<typeof createApnsClient>[0]> = {}): {
  apns: ApnsClient;
  clock: ManualClock;
} {
  const clock = new ManualClock(fakeClock.now());
  // No `ca`: vitest.config.ts sets NODE_EXTRA_CA_CERTS to the fakes' CA, the same trust path as production.
  const apns = createApnsClient({
    url: fake.url,
    keyPem: key.privateKeyPem,
    keyId: key.keyId,
    teamId: key.teamId,
    topic: TOPIC,
    clock,
    ...overrides,
  });
  clients.push(apns);
  return { apns, clock };
}

beforeAll(async () => {
  fakeClock = new ManualClock(Date.now());
  fake = await startFakeApns({ keys: [key], topics: [TOPIC], clock: fakeClock });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((apns) => apns.close()));
  fake.reset();
});

afterAll(async () => {
  await fake.close();
});

describe('APNs client against the fake APNs', () => {
  it('sends the exact path, headers, JWT and payload', async () => {
    const { apns, clock } = client();
    expect(await apns.send(token(1), content, { threadId: 'flights' })).toEqual({ kind: 'delivered' });
    const [request] = await fake.waitForRequests(1);
    expect(request).toMatchObject({ method: 'POST', path: `/3/device/${token(1)}`, status: 200, reason: null });
    expect(request?.headers).toMatchObject({
      'apns-push-type': 'alert',
      'apns-topic': TOPIC,
      'apns-priority': '10',
      'apns-collapse-id': content.notificationId,
      'apns-expiration': String(Math.floor(clock.now() / 1000) + 3600),
    });
    const authorization = String(request?.headers.authorization);
    expect(authorization).toMatch(/^bearer /);
    expect(decodeProtectedHeader(authorization.slice(7))).toEqual({ alg: 'ES256', kid: key.keyId });
    expect(request?.jwt).toEqual({ kid: key.keyId, iss: key.teamId, iat: Math.floor(clock.now() / 1000) });
    expect(request?.payload).toEqual({
      flight: 'LH454',
      url: 'https://example.com/f/454',
      aps: {
        alert: { title: 'Gate change', body: 'LH 454 boards at B12' },
        sound: 'default',
        badge: 1,
        'thread-id': 'flights',
      },
    });
  });

  it('maps 410 Unregistered, BadDeviceToken and DeviceTokenNotForTopic to token_dead', async () => {
    const { apns } = client();
    fake.unregisterToken(token(2), 1_700_000_000_123);
    fake.setTokenOutcome(token(3), { reason: 'BadDeviceToken' });
    fake.setTokenTopic(token(4), 'com.example.other');
    // The 410 body's timestamp (ms) travels with the outcome: a token registered again after it is kept (send-batch.ts).
    expect(await apns.send(token(2), content)).toEqual({
      kind: 'token_dead',
      reason: 'token_unregistered',
      providerReason: 'Unregistered',
      invalidSince: 1_700_000_000_123,
    });
    expect(await apns.send(token(3), content)).toEqual({
      kind: 'token_dead',
      reason: 'token_invalid',
      providerReason: 'BadDeviceToken',
    });
    expect(await apns.send(token(4), content)).toEqual({
      kind: 'token_dead',
      reason: 'token_invalid',
      providerReason: 'DeviceTokenNotForTopic',
    });
  });

  it('refuses a non-hex token and an oversized payload without a request', async () => {
    const { apns } = client();
    expect(await apns.send('not-a-token', content)).toEqual({
      kind: 'token_dead',
      reason: 'token_invalid',
      providerReason: 'BadDeviceToken',
    });
    expect(await apns.send(token(5), { ...content, body: 'x'.repeat(4096) })).toEqual({
      kind: 'rejected',
      reason: 'apns:PayloadTooLarge',
    });
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    ['TooManyRequests', 30, 30_000],
    // 5xx: Apple's 15 minutes unless Retry-After asks for longer (apns-response.ts).
    ['ServiceUnavailable', 5, 900_000],
    ['ServiceUnavailable', 1_800, 1_800_000],
    ['InternalServerError', undefined, 900_000],
  ])('maps %s with Retry-After %s to retry after %s ms', async (reason, retryAfterSeconds, retryAfterMs) => {
    const { apns } = client();
    fake.failNext(1, { reason, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });
    expect(await apns.send(token(6), content)).toEqual({ kind: 'retry', reason: `apns:${reason}`, retryAfterMs });
  });

  it('renews the JWT after ExpiredProviderToken and retries once', async () => {
    const { apns, clock } = client();
    expect(await apns.send(token(7), content)).toEqual({ kind: 'delivered' });
    const firstIat = fake.requests[0]?.jwt?.iat;
    // Apple's clock runs 35 minutes ahead of ours: at our +30 min, APNs sees the token as 65 minutes old.
    clock.advance(30 * MINUTE);
    fakeClock.advance(65 * MINUTE);
    expect(await apns.send(token(7), content)).toEqual({ kind: 'delivered' });
    const [, expired, retried] = await fake.waitForRequests(3);
    expect(expired).toMatchObject({ status: 403, reason: 'ExpiredProviderToken' });
    expect(retried).toMatchObject({ status: 200 });
    expect(retried?.jwt?.iat).toBe((firstIat ?? 0) + 30 * 60);
  });

  it('reports a clock far behind Apple as fatal instead of renewing in a loop', async () => {
    const { apns } = client();
    fakeClock.advance(70 * MINUTE);
    const outcome = await apns.send(token(8), content);
    expect(outcome).toMatchObject({ kind: 'fatal', reason: 'apns:ExpiredProviderToken' });
    expect(outcome.kind === 'fatal' && outcome.fix).toMatch(/clock/);
    expect(fake.requests).toHaveLength(1);
  });

  it('renews on schedule after 50 minutes, which APNs accepts on the same connection', async () => {
    const { apns, clock } = client();
    await apns.send(token(9), content);
    clock.advance(50 * MINUTE);
    fakeClock.advance(50 * MINUTE);
    expect(await apns.send(token(9), content)).toEqual({ kind: 'delivered' });
    const [first, second] = fake.requests;
    expect(second?.sessionId).toBe(first?.sessionId);
    expect((second?.jwt?.iat ?? 0) - (first?.jwt?.iat ?? 0)).toBe(50 * 60);
  });

  it('answers a key APNs does not know with fatal naming the key variables', async () => {
    const other = createApnsSigningKey({ teamId: key.teamId });
    const { apns } = client({ keyPem: other.privateKeyPem, keyId: other.keyId });
    const outcome = await apns.send(token(10), content);
    expect(outcome).toMatchObject({ kind: 'fatal', reason: 'apns:InvalidProviderToken' });
    expect(outcome.kind === 'fatal' && outcome.fix).toMatch(
      /CLARION_APNS_KEY_FILE, CLARION_APNS_KEY_ID and CLARION_APNS_TEAM_ID/,
    );
  });

  it('refuses an unusable key file when the client is created', () => {
    expect(() =>
      createApnsClient({ url: fake.url, keyPem: 'nonsense', keyId: 'K', teamId: 'T', topic: TOPIC, clock: fakeClock }),
    ).toThrow(/CLARION_APNS_KEY_FILE/);
    expect(() =>
      createApnsClient({
        url: fake.url,
        keyFile: '/nonexistent/AuthKey.p8',
        keyId: 'K',
        teamId: 'T',
        topic: TOPIC,
        clock: fakeClock,
      }),
    ).toThrow(/CLARION_APNS_KEY_FILE: cannot read/);
  });

  it('multiplexes 500 concurrent sends within the advertised stream limit', async () => {
    await fake.close();
    fake = await startFakeApns({ keys: [key], topics: [TOPIC], clock: fakeClock, maxConcurrentStreams: 50 });
    fake.setLatency(10);
    const { apns } = client({ maxSessions: 2 });
    const outcomes = await Promise.all(Array.from({ length: 500 }, (_, i) => apns.send(token(1000 + i), content)));
    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    expect(fake.requests).toHaveLength(500);
    expect(fake.sessions.length).toBeLessThanOrEqual(2);
    for (const session of fake.sessions) expect(session.maxActiveStreams).toBeLessThanOrEqual(50);
    // Streams really ran in parallel: more than one at a time on some connection.
    expect(Math.max(...fake.sessions.map((session) => session.maxActiveStreams))).toBeGreaterThan(1);
  });

  it('reconnects after GOAWAY; pushes in flight still complete', async () => {
    const { apns } = client();
    const before = fake.sessions.length;
    expect(await apns.send(token(11), content)).toEqual({ kind: 'delivered' });
    const firstSession = fake.requests[0]?.sessionId;
    fake.setLatency(50);
    const inFlight = Array.from({ length: 20 }, (_, i) => apns.send(token(100 + i), content));
    await waitFor(() => (fake.sessions[before]?.requestCount ?? 0) >= 21, 10_000, 'the fake has the 20 pushes');
    expect(fake.goAway({ reason: 'Shutdown' })).toBe(1);
    expect((await Promise.all(inFlight)).every((outcome) => outcome.kind === 'delivered')).toBe(true);
    fake.setLatency(0);
    expect(await apns.send(token(12), content)).toEqual({ kind: 'delivered' });
    expect(fake.requests.at(-1)?.sessionId).not.toBe(firstSession);
    expect(fake.sessions.find((session) => session.id === firstSession)?.closedAt).not.toBeNull();
  });

  it("sends raw Live Activity pushes with the caller's headers", async () => {
    const { apns, clock } = client();
    const payload = {
      aps: { timestamp: Math.floor(clock.now() / 1000), event: 'update', 'content-state': { gate: 'B12' } },
    };
    const headers = {
      'apns-push-type': 'liveactivity',
      'apns-topic': apnsLiveActivityTopic(apns.topic),
      'apns-priority': '5',
    };
    expect(await apns.sendRaw(token(14), headers, payload)).toEqual({ kind: 'delivered' });
    const [request] = await fake.waitForRequests(1);
    expect(request).toMatchObject({
      pushType: 'liveactivity',
      topic: `${TOPIC}.push-type.liveactivity`,
      priority: 5,
      payload,
    });
    // The wrong topic for the push type is APNs' error, mapped like any other.
    expect(await apns.sendRaw(token(14), { ...headers, 'apns-topic': TOPIC }, payload)).toMatchObject({
      kind: 'fatal',
      reason: 'apns:TopicDisallowed',
    });
  });

  it('rejects a push whose headers node:http2 refuses, and keeps the connection', async () => {
    const { apns } = client();
    await apns.send(token(15), content);
    expect(await apns.sendRaw(token(15), { connection: 'keep-alive' }, { aps: {} })).toEqual({
      kind: 'rejected',
      reason: 'apns:invalid_request',
    });
    expect(await apns.send(token(15), content)).toEqual({ kind: 'delivered' });
    expect(new Set(fake.requests.map((request) => request.sessionId)).size).toBe(1);
  });

  it('closes every connection on close()', async () => {
    const { apns } = client();
    await apns.send(token(13), content);
    await apns.close();
    await waitFor(
      () => fake.sessions.every((session) => session.closedAt !== null),
      10_000,
      'the fake sees every connection closed',
    );
    expect(await apns.send(token(13), content)).toEqual({ kind: 'retry', reason: 'apns:closed', retryAfterMs: null });
  });
});
