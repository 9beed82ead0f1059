import http2 from 'node:http2';
import type { Http2SecureServer, ServerHttp2Session, ServerHttp2Stream, Settings } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { type TLSSocket, createServer as createTlsServer, rootCertificates } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { Http2RequestError, requestFailureOutcome } from '../../../src/delivery/http2/request.ts';
import { SETTINGS_AFTER_HANDSHAKE_MS } from '../../../src/delivery/http2/pool-session.ts';
import { type Http2Pool, createHttp2Pool } from '../../../src/delivery/http2/session-pool.ts';
import { parseRetryAfterMs } from '../../../src/delivery/http2/request.ts';
import { ManualClock } from '../../../src/domain/clock.ts';
import { ensureFakeTls } from '../../../tools/fakes/index.ts';
import { type FaultProxy, startFaultProxy } from '../../../tools/fault-proxy/fault-proxy.ts';
import { waitFor } from '../../harness/wait-for.ts';

/**
 * The pool against a bare HTTP/2 server whose frames each test controls (GOAWAY with a chosen lastStreamID, SETTINGS
 * changes, PING counting), where the fake APNs would hide the detail.
 */
interface RawServer {
  url: string;
  sessions: ServerHttp2Session[];
  pings: number;
  close(): Promise<void>;
}

const tls = ensureFakeTls();
const open: Array<{ close(): Promise<void> }> = [];

async function rawServer(
  onStream: (stream: ServerHttp2Stream, server: RawServer) => void,
  settings: Settings = {},
): Promise<RawServer> {
  const server: Http2SecureServer = http2.createSecureServer({ cert: tls.certPem, key: tls.keyPem, settings });
  const raw: RawServer = {
    url: '',
    sessions: [],
    pings: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of raw.sessions) session.destroy();
      }),
  };
  server.on('session', (session) => {
    raw.sessions.push(session);
    if (settings.initialWindowSize) session.on('connect', () => session.setLocalWindowSize(1 << 30));
    session.on('ping', () => (raw.pings += 1));
    session.on('error', () => {});
  });
  server.on('stream', (stream) => {
    stream.on('error', () => {});
    onStream(stream, raw);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  raw.url = `https://localhost:${(server.address() as AddressInfo).port}`;
  open.push(raw);
  return raw;
}

/**
 * A server behind the fault proxy (tools/fault-proxy/) that answers after `delayMs` and grants huge flow-control
 * windows, so request bodies fill the socket buffers: on a black-holed connection node:http2 then has a write that
 * never completes, which is what keeps its 'close' event from ever coming.
 */
async function serverBehindProxy(delayMs = 20): Promise<{ server: RawServer; proxy: FaultProxy }> {
  const server = await rawServer(
    (stream) => {
      stream.resume();
      const timer = setTimeout(() => !stream.destroyed && ok(stream), delayMs);
      stream.on('close', () => clearTimeout(timer));
    },
    { maxConcurrentStreams: 200, initialWindowSize: 1 << 24 },
  );
  for (const session of server.sessions) session.setLocalWindowSize(1 << 30);
  const port = Number(new URL(server.url).port);
  const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port } });
  open.push(proxy);
  return { server, proxy };
}

const BIG_BODY = 'y'.repeat(200_000);

function pool(
  url: string,
  clock = new ManualClock(),
  extra: Partial<Parameters<typeof createHttp2Pool>[0]> = {},
): Http2Pool {
  const created = createHttp2Pool({ origin: url, clock, ca: tls.caPem, ...extra });
  open.push(created);
  return created;
}

const ok = (stream: ServerHttp2Stream) => {
  stream.respond({ ':status': 200 });
  stream.end();
};

afterEach(async () => {
  // Clients first, so servers are not left waiting on open connections.
  for (const item of open.splice(0).reverse()) await item.close();
});

describe('HTTP/2 session pool', () => {
  it('sends GET and DELETE requests, whose stream node:http2 may end itself, and keeps the session', async () => {
    const server = await rawServer((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.end('{}');
    });
    const client = pool(server.url);
    const get = await client.request({ ':method': 'GET', ':path': '/list' }, '');
    const remove = await client.request({ ':method': 'DELETE', ':path': '/item' }, '');
    expect([get.status, remove.status]).toEqual([200, 200]);
    expect(server.sessions).toHaveLength(1);
  });

  it('retries on a new session the streams a GOAWAY left unprocessed', async () => {
    const held: ServerHttp2Stream[] = [];
    const server = await rawServer(
      (stream, raw) => {
        if (raw.sessions.length > 1 || held.length >= 3) return ok(stream);
        held.push(stream);
        if (held.length < 3) return;
        // Three streams open; only the first will be processed: GOAWAY(NO_ERROR, lastStreamID = its id).
        stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, held[0]?.id ?? 1);
        ok(held[0] as ServerHttp2Stream);
      },
      { maxConcurrentStreams: 10 },
    );
    const client = pool(server.url);
    const results = await Promise.all([1, 2, 3].map((n) => client.request({ ':path': `/${n}` }, 'x')));
    expect(results.map((result) => result.status)).toEqual([200, 200, 200]);
    expect(held).toHaveLength(3);
    expect(server.sessions).toHaveLength(2);
  });

  it('keeps to the server stream limit and follows a SETTINGS change', async () => {
    let active = 0;
    let maxActive = 0;
    const server = await rawServer(
      (stream) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        setImmediate(() => {
          active -= 1;
          ok(stream);
          // Like APNs after the first valid token (docs/protocols.md 1.2, 1.6).
          stream.session?.settings({ maxConcurrentStreams: 5 });
        });
      },
      { maxConcurrentStreams: 1 },
    );
    const client = pool(server.url, new ManualClock(), { maxSessions: 1 });
    const first = client.request({ ':path': '/a' }, '');
    const rest = Array.from({ length: 40 }, (_, i) => client.request({ ':path': `/${i}` }, ''));
    expect(client.stats()).toMatchObject({ sessions: 1 });
    await first;
    await Promise.all(rest);
    expect(maxActive).toBeLessThanOrEqual(5);
    expect(maxActive).toBeGreaterThan(1);
    expect(client.stats()).toEqual({ sessions: 1, activeStreams: 0, queued: 0, streamLimits: [5] });
  });

  it('pings a session idle for pingIdleMs and keeps it', async () => {
    const server = await rawServer(ok);
    const clock = new ManualClock();
    const client = pool(server.url, clock, { pingIdleMs: 5 * 60_000 });
    await client.request({ ':path': '/' }, '');
    clock.advance(4 * 60_000);
    client.checkIdleSessions();
    // Frames on one connection arrive in order: had that check sent a PING, the server would have seen it before this
    // request, so the count below proves that no PING went out (it is not a check that merely came too early).
    expect((await client.request({ ':path': '/' }, '')).status).toBe(200);
    expect(server.pings).toBe(0);
    clock.advance(5 * 60_000);
    client.checkIdleSessions();
    await waitFor(() => server.pings === 1, 10_000, 'the server got a PING');
    expect((await client.request({ ':path': '/' }, '')).status).toBe(200);
    expect(server.sessions).toHaveLength(1);
  });

  it('PINGs a session after a request timeout, drops it when unanswered, and connects again', async () => {
    // A peer that sends its SETTINGS and then never answers anything: a connection that died without a FIN.
    const sockets = new Set<TLSSocket>();
    const silent = createTlsServer({ cert: tls.certPem, key: tls.keyPem, ALPNProtocols: ['h2'] }, (socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('data', () => {});
      socket.write(Buffer.from('000000040000000000', 'hex')); // empty SETTINGS frame (RFC 9113 §6.5)
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          silent.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        }),
    });
    const clock = new ManualClock();
    const client = pool(`https://localhost:${(silent.address() as AddressInfo).port}`, clock, {
      requestTimeoutMs: 100,
      pingTimeoutMs: 100,
    });
    await expect(client.request({ ':path': '/' }, '')).rejects.toMatchObject({ kind: 'timeout' });
    // The timeout triggers a PING at once; it goes unanswered, so the session is dropped.
    await waitFor(() => client.stats().sessions === 0, 10_000, 'the unanswered session is dropped');
    await expect(client.request({ ':path': '/' }, '')).rejects.toMatchObject({ kind: 'timeout' });
    await waitFor(() => sockets.size === 2, 10_000, 'a second connection');
  });

  it('gives a request that waited for a free stream its full timeout once sent', async () => {
    // One stream at a time, each answered after 300 ms: the second request waits 300 ms, then needs 300 ms more.
    const server = await rawServer(
      (stream) => {
        const timer = setTimeout(() => !stream.destroyed && ok(stream), 300);
        stream.on('close', () => clearTimeout(timer));
      },
      { maxConcurrentStreams: 1 },
    );
    const client = pool(server.url, new ManualClock(), { maxSessions: 1, requestTimeoutMs: 500 });
    expect((await client.request({ ':path': '/warm-up' }, '')).status).toBe(200);
    const results = await Promise.all([client.request({ ':path': '/a' }, ''), client.request({ ':path': '/b' }, '')]);
    // Timed out over the whole 600 ms, /b would be sent again by the engine although the server answered it.
    expect(results.map((result) => result.status)).toEqual([200, 200]);
  });

  it('fails fast when it cannot connect, and reports the cause', async () => {
    const server = await rawServer(ok);
    const url = server.url;
    await server.close();
    const client = pool(url);
    const error = await client.request({ ':path': '/' }, '').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Http2RequestError);
    expect(error).toMatchObject({ kind: 'connect', causeCode: 'ECONNREFUSED' });
    expect(requestFailureOutcome(error, 'apns', 'CLARION_APNS_URL')).toEqual({
      kind: 'retry',
      reason: 'apns:connect_failed',
      retryAfterMs: null,
    });
  });

  it('turns an untrusted certificate into a fatal outcome naming the URL variable', async () => {
    const server = await rawServer(ok);
    const client = pool(server.url, new ManualClock(), { ca: rootCertificates[0] });
    const error = await client.request({ ':path': '/' }, '').catch((caught: unknown) => caught);
    const outcome = requestFailureOutcome(error, 'apns', 'CLARION_APNS_URL');
    expect(outcome).toMatchObject({ kind: 'fatal' });
    expect(outcome.kind === 'fatal' && outcome.fix).toMatch(/CLARION_APNS_URL.*NODE_EXTRA_CA_CERTS/);
  });

  it('times out a request that gets no answer', async () => {
    const server = await rawServer(() => {});
    const client = pool(server.url, new ManualClock(), { requestTimeoutMs: 100 });
    await expect(client.request({ ':path': '/' }, '')).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('closes sessions, fails queued requests and refuses new ones after close()', async () => {
    const server = await rawServer(ok);
    const client = pool(server.url);
    await client.request({ ':path': '/' }, '');
    await client.close();
    await waitFor(
      () => server.sessions.every((session) => session.closed || session.destroyed),
      10_000,
      'the server sees the session closed',
    );
    await expect(client.request({ ':path': '/' }, '')).rejects.toMatchObject({ kind: 'closed' });
  });
});

describe('HTTP/2 session pool under network faults', () => {
  it("drops a black-holed session at once and serves the queue on a new connection, with FCM's single session", async () => {
    const { proxy } = await serverBehindProxy();
    const client = pool(proxy.url, new ManualClock(), { maxSessions: 1, requestTimeoutMs: 500, pingTimeoutMs: 300 });
    expect((await client.request({ ':path': '/warm-up' }, '')).status).toBe(200);
    // The connection goes silent with ~20 MB of request bodies in flight; new connections still work.
    proxy.stall({ newConnections: false });
    const stuck = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => client.request({ ':path': `/stuck/${i}` }, BIG_BODY)),
    );
    // The first requests time out and put the session under suspicion; once its PING goes unanswered, it is dropped and
    // whatever it still holds fails as connection_lost. On a loaded machine the 100 bodies go out over more than the
    // PING's 300 ms, so some requests are still inside their own 500 ms then: either outcome is right, none is answered.
    const outcomes = stuck.map((result) =>
      result.status === 'rejected' ? (result.reason as Http2RequestError).kind : 'answered',
    );
    expect(outcomes).toContain('timeout');
    expect(outcomes.filter((kind) => kind !== 'timeout' && kind !== 'connection_lost')).toEqual([]);
    // Every later request reaches the server over a new connection instead of waiting on the dead one.
    const after = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.request({ ':path': `/after/${i}` }, 'x')),
    );
    expect(after.map((response) => response.status)).toEqual(Array(20).fill(200));
    await waitFor(
      () => client.stats().sessions === 1 && proxy.acceptedConnections === 2,
      10_000,
      'one session left, on the second connection',
    );
  });

  it('PINGs a connection that falls silent under requests in flight without waiting for their timeout, drops it, and goes on on a new one', async () => {
    const { proxy } = await serverBehindProxy();
    // Request timeouts far beyond the test: only hearing nothing on a busy connection may set off its PING.
    const requestTimeoutMs = 60_000;
    const client = pool(proxy.url, new ManualClock(), { requestTimeoutMs, pingTimeoutMs: 500 });
    expect((await client.request({ ':path': '/warm-up' }, '')).status).toBe(200);
    // A reset the socket never reports looks the same from here: nothing comes back, whatever is sent.
    proxy.stall({ newConnections: false });
    const started = performance.now();
    const stuck = await Promise.allSettled([
      client.request({ ':path': '/a' }, 'x'),
      client.request({ ':path': '/b' }, 'x'),
    ]);
    expect(
      stuck.map((result) => (result.status === 'rejected' ? (result.reason as Http2RequestError).kind : 'answered')),
    ).toEqual(['connection_lost', 'connection_lost']);
    expect(performance.now() - started).toBeLessThan(requestTimeoutMs);
    expect((await client.request({ ':path': '/after' }, 'x')).status).toBe(200);
    expect(proxy.acceptedConnections).toBe(2);
  });

  it('settles every in-flight request when all connections are reset, and goes on on new ones', async () => {
    const { proxy } = await serverBehindProxy(200);
    const client = pool(proxy.url, new ManualClock(), { maxSessions: 2, requestTimeoutMs: 20_000 });
    expect((await client.request({ ':path': '/warm-up' }, '')).status).toBe(200);
    const inFlight = Array.from({ length: 150 }, (_, i) => client.request({ ':path': `/${i}` }, 'x'));
    await waitFor(() => client.stats().activeStreams > 0, 10_000, 'streams in flight');
    expect(proxy.reset()).toBeGreaterThan(0);
    const results = await Promise.allSettled(inFlight);
    // Answered, retried elsewhere, or failed as connection_lost for the engine to retry: never left to time out.
    for (const result of results) {
      if (result.status === 'rejected') {
        expect(result.reason).toMatchObject({ kind: 'connection_lost' });
        // Sent again at once on a new connection (send-batch.ts), not after the backoff of other retries.
        expect(requestFailureOutcome(result.reason, 'apns', 'CLARION_APNS_URL')).toEqual({
          kind: 'retry',
          reason: 'apns:connection_lost',
          retryAfterMs: null,
          connectionLost: true,
        });
      }
    }
    const after = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.request({ ':path': `/after/${i}` }, 'x')),
    );
    expect(after.map((response) => response.status)).toEqual(Array(20).fill(200));
  });

  /** A TLS server that speaks h2 in ALPN and then says nothing: a connection black-holed right after the handshake. */
  async function muteAfterHandshake(): Promise<string> {
    const sockets = new Set<TLSSocket>();
    const mute = createTlsServer({ cert: tls.certPem, key: tls.keyPem, ALPNProtocols: ['h2'] }, (socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('data', () => {});
    });
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          mute.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        }),
    });
    return `https://localhost:${(mute.address() as AddressInfo).port}`;
  }

  it('gives up a connection that completes TLS but never sends SETTINGS, as a connect failure', async () => {
    // node:http2 reports 'connect', but the connection never becomes usable.
    const client = pool(await muteAfterHandshake(), new ManualClock(), {
      connectTimeoutMs: 200,
      requestTimeoutMs: 10_000,
    });
    await expect(client.request({ ':path': '/' }, '')).rejects.toMatchObject({
      kind: 'connect',
      causeCode: 'ETIMEDOUT',
    });
    expect(client.stats().sessions).toBe(0);
  });

  it('gives up waiting for SETTINGS a second after the TLS handshake, long before the connect timeout', async () => {
    // The connect timeout (60 s) and the request's own deadline are past the test's timeout: only the deadline after
    // the handshake (pool-session.ts, SETTINGS_AFTER_HANDSHAKE_MS) can end the wait in time.
    const client = pool(await muteAfterHandshake(), new ManualClock(), {
      connectTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
    });
    const failure = await client.request({ ':path': '/' }, '').then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Http2RequestError);
    expect(failure).toMatchObject({ kind: 'connect', causeCode: 'ETIMEDOUT' });
    expect((failure as Error).message).toContain(
      `no HTTP/2 SETTINGS within ${SETTINGS_AFTER_HANDSHAKE_MS} ms of the TLS handshake`,
    );
    expect(client.stats().sessions).toBe(0);
  }, 10_000);

  it('keeps a connection whose SETTINGS arrived while the event loop was too busy to read them by the deadline', async () => {
    // A server that sends its SETTINGS the moment its side of the handshake is done, then holds the (shared) event
    // loop past the client's deadline: when the deadline's timer runs, the SETTINGS sit in the socket unread. The
    // client must read them and acknowledge them (RFC 9113 §6.5.3) rather than give the connection up.
    const SETTINGS = Buffer.from('000000040000000000', 'hex');
    const SETTINGS_ACK = Buffer.from('000000040100000000', 'hex');
    const sockets = new Set<TLSSocket>();
    let received = Buffer.alloc(0);
    let closed = false;
    const busy = createTlsServer({ cert: tls.certPem, key: tls.keyPem, ALPNProtocols: ['h2'] }, (socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
      socket.on('close', () => (closed = true));
      socket.write(SETTINGS);
      const busyUntil = performance.now() + SETTINGS_AFTER_HANDSHAKE_MS + 300;
      while (performance.now() < busyUntil);
    });
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          busy.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        }),
    });
    const client = pool(`https://localhost:${(busy.address() as AddressInfo).port}`);
    // Never answered: it ends, rejected, when the pool closes after the test.
    client.request({ ':path': '/' }, '').catch(() => {});
    await waitFor(
      () => closed || received.includes(SETTINGS_ACK),
      5_000,
      'the SETTINGS acknowledged, or the connection closed',
    );
    expect(closed, 'the client gave the connection up').toBe(false);
    expect(client.stats().sessions).toBe(1);
  });

  it('close() cuts a black-holed session holding streams instead of waiting for it', async () => {
    const { proxy } = await serverBehindProxy();
    const client = pool(proxy.url, new ManualClock(), { maxSessions: 1 });
    expect((await client.request({ ':path': '/warm-up' }, '')).status).toBe(200);
    proxy.stall();
    const stuck = Array.from({ length: 100 }, (_, i) => client.request({ ':path': `/stuck/${i}` }, BIG_BODY));
    await waitFor(() => client.stats().activeStreams > 0, 10_000, 'streams in flight');
    // The test's own timeout is the bound: before the fix close() waited for a 'close' event that never came.
    await client.close();
    const results = await Promise.allSettled(stuck);
    expect(results.every((result) => result.status === 'rejected')).toBe(true);
    expect(client.stats()).toEqual({ sessions: 0, activeStreams: 0, queued: 0, streamLimits: [] });
  }, 15_000);
});

describe('parseRetryAfterMs', () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);
  it.each<[string | undefined, number | null]>([
    [undefined, null],
    ['', null],
    ['30', 30_000],
    [' 0 ', 0],
    ['Thu, 15 Jan 2026 12:01:00 GMT', 60_000],
    ['Thu, 15 Jan 2026 11:00:00 GMT', 0],
    ['soon', null],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected);
  });
});
