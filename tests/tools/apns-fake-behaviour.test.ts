import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.ts';
import { ALERT, BUNDLE, DEVICE, apnsFixture } from './apns-fixture.ts';
import { fakeCa, h2Request, openSession, waitForRemoteMaxStreams } from './h2-test-client.ts';

const OTHER = 'b2'.repeat(32);

describe('fake APNs: configured outcomes', () => {
  it('answers 410 Unregistered with the timestamp in epoch milliseconds', async () => {
    const clock = new ManualClock();
    const { push, apns } = await apnsFixture({ clock });
    apns.unregisterToken(DEVICE.toUpperCase()); // tokens are hex, so case does not matter
    apns.unregisterToken(OTHER, 1_700_000_000_123);

    const now = await push();
    expect(now.status).toBe(410);
    expect(JSON.parse(now.body)).toEqual({ reason: 'Unregistered', timestamp: clock.now() });
    const fixed = await push(OTHER);
    expect(fixed.body).toBe('{"reason":"Unregistered","timestamp":1700000000123}');
    expect(apns.requests.map((request) => request.injected)).toEqual([true, true]);
  });

  it('answers any configured reason with its catalog status, until the outcome is removed', async () => {
    const { push, apns } = await apnsFixture();
    apns.setTokenOutcome(DEVICE, { reason: 'BadDeviceToken' });
    apns.setTokenOutcome(OTHER, { reason: 'ExpiredToken' });
    expect(await push()).toMatchObject({ status: 400, body: '{"reason":"BadDeviceToken"}' });
    expect(await push(OTHER)).toMatchObject({ status: 410 });
    expect(JSON.parse((await push(OTHER)).body)).toMatchObject({
      reason: 'ExpiredToken',
      timestamp: expect.any(Number),
    });
    apns.setTokenOutcome(DEVICE, null);
    expect((await push()).status).toBe(200);
    expect(() => apns.setTokenOutcome(DEVICE, { reason: 'NoSuchReason' })).toThrow(/give a status/);
  });

  it('still applies the protocol rules before a configured outcome', async () => {
    const { push, apns } = await apnsFixture();
    apns.unregisterToken(DEVICE);
    expect((await push(DEVICE, { 'apns-priority': '3' })).body).toBe('{"reason":"BadPriority"}');
  });

  it('fails the next requests with 429 and Retry-After, then succeeds', async () => {
    const { push, apns } = await apnsFixture();
    apns.failNext(2, { reason: 'TooManyRequests', retryAfterSeconds: 7 });
    apns.failNext(1, { status: 503, reason: 'ServiceUnavailable' });

    for (let i = 0; i < 2; i++) {
      const limited = await push();
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('7');
      expect(limited.body).toBe('{"reason":"TooManyRequests"}');
    }
    const unavailable = await push(OTHER);
    expect(unavailable).toMatchObject({ status: 503, body: '{"reason":"ServiceUnavailable"}' });
    expect(unavailable.headers['retry-after']).toBeUndefined();
    expect((await push()).status).toBe(200);
  });

  it('adds fixed latency before answering', async () => {
    const { push, apns } = await apnsFixture();
    expect((await push()).status).toBe(200); // unlock the connection first
    apns.setLatency(150);
    const started = performance.now();
    expect((await push()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('adds per-request latency, so a fast token overtakes a slow one on the same connection', async () => {
    const { push, apns, session } = await apnsFixture();
    expect((await push()).status).toBe(200);
    await waitForRemoteMaxStreams(session, 500);
    apns.reset();
    apns.setLatency((request) => (request.token === DEVICE ? 300 : 0));

    const order: string[] = [];
    await Promise.all([push(DEVICE).then(() => order.push('slow')), push(OTHER).then(() => order.push('fast'))]);
    expect(order).toEqual(['fast', 'slow']);
    expect(apns.requests.map((request) => request.token)).toEqual([OTHER, DEVICE]);
  });

  it('reset() forgets outcomes, bursts, latency and the record', async () => {
    const { push, apns } = await apnsFixture();
    apns.unregisterToken(DEVICE);
    apns.failNext(5, { reason: 'InternalServerError' });
    apns.setLatency(10_000);
    apns.reset();
    expect((await push()).status).toBe(200);
    expect(apns.requests).toHaveLength(1);
  });
});

describe('fake APNs: connections', () => {
  it('advertises MAX_CONCURRENT_STREAMS=1 until a valid token, then 500 (docs/protocols.md 1.2, 1.6)', async () => {
    const { push, session, apns } = await apnsFixture();
    await waitForRemoteMaxStreams(session, 1);
    expect((await push(DEVICE, { authorization: 'bearer nope' })).status).toBe(403);
    expect(session.remoteSettings.maxConcurrentStreams).toBe(1);
    expect((await push()).status).toBe(200);
    await waitForRemoteMaxStreams(session, 500);
    expect(apns.sessions[0]?.maxActiveStreams).toBe(1);
  });

  it('enforces the advertised limit: the client queues, and streams beyond it are never open at once', async () => {
    const { push, session, apns } = await apnsFixture({ maxConcurrentStreams: 2 });
    expect((await push()).status).toBe(200);
    await waitForRemoteMaxStreams(session, 2);
    apns.setLatency(50);
    const responses = await Promise.all(Array.from({ length: 6 }, () => push()));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(apns.sessions[0]?.maxActiveStreams).toBe(2);
  });

  it('refuses streams a client opens beyond the limit before it has read the SETTINGS frame', async () => {
    const { apns, jwt } = await apnsFixture();
    // Requests made right at connect go out with the connection preface, before the server's SETTINGS arrive.
    const session = http2.connect(apns.url, { ca: fakeCa });
    session.on('error', () => {});
    const headers = { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${jwt}`, 'apns-topic': BUNDLE };
    const results = await Promise.allSettled([
      h2Request(session, headers, ALERT),
      h2Request(session, headers, ALERT),
      h2Request(session, headers, ALERT),
    ]);
    await new Promise<void>((resolve) => session.close(() => resolve()));

    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const result of refused) expect(String((result as PromiseRejectedResult).reason)).toMatch(/REFUSED_STREAM/);
    expect(apns.sessions.at(-1)?.maxActiveStreams).toBe(1);
  });

  it('sends GOAWAY with a JSON reason on goAway(), and the client sees it', async () => {
    const { push, session, apns } = await apnsFixture();
    expect((await push()).status).toBe(200);
    const goaway = new Promise<{ errorCode: number; reason: unknown }>((resolve) =>
      session.once('goaway', (errorCode, _lastStreamId, opaqueData) =>
        resolve({ errorCode, reason: JSON.parse(opaqueData?.toString() ?? 'null') }),
      ),
    );
    const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    expect(apns.goAway({ reason: 'Shutdown' })).toBe(1);

    expect(await goaway).toEqual({ errorCode: 0, reason: { reason: 'Shutdown' } });
    await closed;
    await apns.waitForRequests(1);
    const fresh = await openSession(apns.url);
    expect(fresh.destroyed).toBe(false);
  });

  it('records which connection each request came on', async () => {
    const { push, apns, jwt } = await apnsFixture();
    await push();
    const second = await openSession(apns.url);
    await h2Request(
      second,
      { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${jwt}`, 'apns-topic': BUNDLE },
      ALERT,
    );
    const records = await apns.waitForRequests(2);
    expect(records.map((record) => record.sessionId)).toEqual([1, 2]);
    expect(apns.sessions).toHaveLength(2);
  });

  it('close() ends open connections, in-flight delays and pending waits, so nothing is left open', async () => {
    const { push, apns, session } = await apnsFixture();
    expect((await push()).status).toBe(200);
    let reachedFake = () => {};
    const reached = new Promise<void>((resolve) => (reachedFake = resolve));
    apns.setLatency(() => {
      reachedFake();
      return 60_000;
    });
    const inFlight = push().then(
      (response) => response.status,
      (error: Error) => error.message,
    );
    await reached;
    // Settled as close() aborts it: handled from the start, so its rejection is never unhandled.
    const pending = apns.waitForRequests(10, 60_000).then(
      () => 'still waiting',
      (error: Error) => error.message,
    );
    const clientClosed = new Promise<void>((resolve) => session.once('close', () => resolve()));

    await apns.close();
    expect(await pending).toMatch(/closed/);
    await clientClosed;
    expect(await inFlight).not.toBe(200);
  });

  it('waitForRequest resolves on a later request and times out with a clear message', async () => {
    const { push, apns } = await apnsFixture();
    const waiting = apns.waitForRequest((request) => request.token === OTHER);
    await push(DEVICE);
    await push(OTHER);
    expect((await waiting).token).toBe(OTHER);
    await expect(apns.waitForRequests(5, 50)).rejects.toThrow(
      /timed out after 50 ms waiting for 5 request\(s\); 2 recorded/,
    );
  });
});
