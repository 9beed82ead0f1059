import http2 from 'node:http2';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../domain/clock.ts';
import { Http2RequestError, describeError } from './http2-request-failure.ts';

/**
 * A small pool of HTTP/2 sessions to one origin: APNs' provider API, and FCM (fcm-client.ts reuses it).
 *
 * Hand-written because this is the product's core and the libraries are weak exactly here (docs/develop.md, convention 10). undici (what
 * apns2(npm) builds on, docs/protocols.md 1.6) offers HTTP/2 as an opt-in with a fixed client-side stream count, while APNs
 * changes its limit during a connection's life (1 until the first valid token, then 500, sometimes 1 again after a
 * rejection; docs/protocols.md 1.2, 1.6); we also need to know which streams a GOAWAY left unprocessed, and to PING idle
 * connections. node:http2 exposes all of that, so the pool is built on it. What it does:
 * - streams per session never exceed the server's current limit (updated on every SETTINGS frame, capped by
 *   `maxStreamsPerSession`); requests beyond it wait in one FIFO queue;
 * - another session opens only when every session is full *and* has completed a request (a fresh APNs session allows
 *   one stream until authenticated, so a burst would otherwise open `maxSessions` connections at once; Apple treats
 *   rapid connecting as abuse, docs/protocols.md 1.6), up to `maxSessions`;
 * - GOAWAY: the session takes no new streams; streams the server never processed (id > lastStreamID, or refused) are
 *   retried transparently on another session; streams that may have been processed fail with `connection_lost`, and
 *   the delivery engine retries them (at least once, the collapse id makes a repeat replace, docs/design.md 3.3);
 * - a session idle for `pingIdleMs`, or one where a request just timed out, gets a PING (Apple: "use HTTP/2 PING to
 *   check health", docs/protocols.md 1.6); no answer within `pingTimeoutMs` destroys it, so pushes do not keep waiting on
 *   a dead TCP connection;
 * - close() closes every session and timer: no handle stays open.
 */

export interface DeliveryLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export const silentLogger: DeliveryLogger = { debug() {}, info() {}, warn() {} };

export interface Http2PoolOptions {
  /** e.g. https://api.push.apple.com; only the origin is used. */
  origin: string;
  clock: Clock;
  /** Extra trusted CA (tests); production trusts the process's CAs, including NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer | Array<string | Buffer>;
  logger?: DeliveryLogger;
  /** Name in log lines ("apns", "fcm"). */
  name?: string;
  /** Default 4: 4 × APNs' 500 streams = 2000 pushes in flight, more than one worker's send jobs need. */
  maxSessions?: number;
  /** Our own cap when a server advertises no limit (RFC 9113 leaves it unlimited). Default 1000. */
  maxStreamsPerSession?: number;
  /** Whole request, queueing included. Default 15 s (FCM asks for ≥ 10 s, docs/protocols.md 3.5; node-apn uses 5 s). */
  requestTimeoutMs?: number;
  /** Default 10 s: a connection that cannot be set up by then is abandoned. */
  connectTimeoutMs?: number;
  /**
   * PING a session idle this long, and again after each further such interval. Default 5 minutes: under the
   * 350 s idle timeout of common NAT gateways (AWS), which would otherwise drop the connection silently.
   */
  pingIdleMs?: number;
  /** Default 10 s without a PING answer → the session is considered dead. */
  pingTimeoutMs?: number;
}

export interface Http2Response {
  status: number;
  headers: IncomingHttpHeaders;
  /** UTF-8 body, at most 64 KiB kept (provider error bodies are a few hundred bytes). */
  body: string;
  /** Retry-After converted to a delay (seconds or HTTP-date), or null when absent or unreadable. */
  retryAfterMs: number | null;
}

export interface Http2Pool {
  /** Sends one request; `headers` carries `:path` and everything else; `:method` defaults to POST. */
  request(headers: OutgoingHttpHeaders, body: string | Buffer): Promise<Http2Response>;
  /** PINGs idle sessions now; runs on a timer too, exposed so tests can drive it with the clock. */
  checkIdleSessions(): void;
  stats(): { sessions: number; activeStreams: number; queued: number; streamLimits: number[] };
  close(): Promise<void>;
}

interface PoolSession {
  session: ClientHttp2Session;
  connected: boolean;
  settingsReceived: boolean;
  /** Completed at least one request: the server's limit reflects an authenticated connection. */
  established: boolean;
  draining: boolean;
  goawayLastStreamId: number | null;
  active: number;
  lastActivity: number;
  pinging: boolean;
}

interface Pending {
  headers: OutgoingHttpHeaders;
  body: string | Buffer;
  /** Transparent re-dispatches after an unprocessed stream; bounded by MAX_REDISPATCH. */
  redispatches: number;
  settled: boolean;
  stream: ClientHttp2Stream | null;
  session: PoolSession | null;
  timer: NodeJS.Timeout;
  resolve(response: Http2Response): void;
  reject(error: Http2RequestError): void;
}

const MAX_REDISPATCH = 3;
const MAX_BODY_BYTES = 64 * 1024;
const CLOSE_GRACE_MS = 5_000;
/** After a failed connect while other sessions still serve, wait this long before trying another one. */
const RECONNECT_BACKOFF_MS = 1_000;
const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL } = http2.constants;
/** session.request() errors that mean the session can take no more streams (Node's codes). */
const SESSION_GONE_CODES = new Set(['ERR_HTTP2_INVALID_SESSION', 'ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_OUT_OF_STREAMS', 'ERR_HTTP2_STREAM_CANCEL']);

export function createHttp2Pool(options: Http2PoolOptions): Http2Pool {
  const origin = new URL(options.origin).origin;
  const log = options.logger ?? silentLogger;
  const name = options.name ?? 'http2';
  const maxSessions = options.maxSessions ?? 4;
  const maxStreams = options.maxStreamsPerSession ?? 1000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const pingIdleMs = options.pingIdleMs ?? 5 * 60_000;
  const pingTimeoutMs = options.pingTimeoutMs ?? 10_000;
  const sessions = new Set<PoolSession>();
  const queue: Pending[] = [];
  let closed = false;
  /**
   * performance.now() before which no extra session is opened. Real time, not the injected clock: it only spaces out
   * connection attempts (Apple treats rapid reconnecting as abuse, docs/protocols.md 1.6) and must pass in tests too.
   */
  let connectBackoffUntil = 0;
  const pingTimer = setInterval(() => checkIdleSessions(), Math.min(pingIdleMs, 30_000));
  pingTimer.unref();

  const usable = (s: PoolSession): boolean => s.connected && !s.draining && !s.session.closed && !s.session.destroyed;
  const limit = (s: PoolSession): number =>
    usable(s) && s.settingsReceived ? Math.min(s.session.remoteSettings.maxConcurrentStreams ?? maxStreams, maxStreams) : 0;

  function pump(): void {
    while (queue.length > 0) {
      let best: PoolSession | null = null;
      for (const s of sessions) {
        if (s.active < limit(s) && (!best || s.active < best.active)) best = s;
      }
      if (!best) break;
      dispatch(queue.shift() as Pending, best);
    }
    if (queue.length > 0 && shouldOpenSession()) openSession();
  }

  function shouldOpenSession(): boolean {
    if (closed) return false;
    const live = [...sessions].filter((s) => !s.draining);
    if (live.length >= maxSessions) return false;
    if (live.some((s) => !s.connected || !s.settingsReceived)) return false; // one connecting at a time
    if (live.length > 0 && performance.now() < connectBackoffUntil) return false;
    return live.every((s) => s.established && s.active >= limit(s));
  }

  function openSession(): void {
    const session = http2.connect(origin, { ...(options.ca ? { ca: options.ca } : {}), settings: { enablePush: false } });
    const s: PoolSession = { session, connected: false, settingsReceived: false, established: false, draining: false, goawayLastStreamId: null, active: 0, lastActivity: options.clock.now(), pinging: false };
    sessions.add(s);
    let lastError: unknown = null;
    const connectTimer = setTimeout(() => session.destroy(Object.assign(new Error(`connect timed out after ${connectTimeoutMs} ms`), { code: 'ETIMEDOUT' })), connectTimeoutMs);
    session.on('connect', () => {
      clearTimeout(connectTimer);
      s.connected = true;
      log.debug({ provider: name, origin }, 'provider session connected');
      pump();
    });
    session.on('remoteSettings', (settings) => {
      s.settingsReceived = true;
      log.debug({ provider: name, maxConcurrentStreams: settings.maxConcurrentStreams }, 'provider session settings');
      pump();
    });
    session.on('goaway', (errorCode: number, lastStreamId: number, data: Buffer) => {
      s.draining = true;
      s.goawayLastStreamId = lastStreamId;
      log.warn({ provider: name, errorCode, lastStreamId, reason: data?.toString('utf8') || undefined }, 'provider sent GOAWAY; reconnecting');
      pump();
    });
    session.on('error', (error: unknown) => {
      lastError = error;
      log.warn({ provider: name, err: error }, 'provider session error');
    });
    session.on('close', () => {
      clearTimeout(connectTimer);
      sessions.delete(s);
      if (!s.connected) connectBackoffUntil = performance.now() + RECONNECT_BACKOFF_MS;
      if (!s.connected && ![...sessions].some((other) => other.connected && !other.draining)) {
        // Could not connect and nothing else can serve the queue: fail fast instead of reconnecting in a loop.
        const failure = new Http2RequestError('connect', `cannot connect to ${origin}: ${describeError(lastError)}`, lastError);
        for (const pending of queue.splice(0)) settle(pending, failure);
      }
      pump();
    });
  }

  function dispatch(pending: Pending, s: PoolSession): void {
    s.active += 1;
    s.lastActivity = options.clock.now();
    let stream: ClientHttp2Stream;
    try {
      stream = s.session.request({ ':method': 'POST', ...pending.headers });
    } catch (error) {
      s.active -= 1;
      if (!SESSION_GONE_CODES.has((error as NodeJS.ErrnoException).code ?? '')) {
        // A header Node refuses (ERR_HTTP2_INVALID_HEADER_VALUE, …): this request is wrong, not the session.
        settle(pending, new Http2RequestError('invalid_request', `${name}: request refused by node:http2: ${describeError(error)}`, error));
        return;
      }
      // The session went away between the check and the request: nothing was sent.
      s.draining = true;
      requeueOrFail(pending, error);
      return;
    }
    pending.stream = stream;
    pending.session = s;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let streamError: unknown = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    stream.on('response', (responseHeaders) => {
      headers = responseHeaders;
      status = Number(responseHeaders[':status']);
    });
    stream.on('data', (chunk: Buffer) => {
      if (kept < MAX_BODY_BYTES) {
        chunks.push(chunk);
        kept += chunk.length;
      }
    });
    stream.on('error', (error) => (streamError = error));
    stream.on('close', () => {
      s.active -= 1;
      s.lastActivity = options.clock.now();
      if (status > 0 && stream.rstCode === http2.constants.NGHTTP2_NO_ERROR && streamError === null) {
        s.established = true;
        const body = Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8');
        settle(pending, { status, headers, body, retryAfterMs: parseRetryAfterMs(headers['retry-after'], options.clock.now()) });
      } else if (status === 0 && wasUnprocessed(stream, s)) {
        requeueOrFail(pending, streamError ?? new Error(`stream refused (rst ${stream.rstCode})`));
      } else if (!pending.settled) {
        settle(pending, new Http2RequestError('connection_lost', `${name}: connection lost mid-request: ${describeError(streamError ?? `rst ${stream.rstCode}`)}`, streamError));
      }
      pump();
    });
    stream.end(pending.body);
  }

  /** Never sent, beyond the GOAWAY's lastStreamID, or refused: the server did not act on it, so resending is safe. */
  function wasUnprocessed(stream: ClientHttp2Stream, s: PoolSession): boolean {
    if (stream.id === undefined) return true;
    if (s.goawayLastStreamId !== null && stream.id > s.goawayLastStreamId) return true;
    return stream.rstCode === NGHTTP2_REFUSED_STREAM;
  }

  function requeueOrFail(pending: Pending, cause: unknown): void {
    if (pending.settled) return;
    pending.stream = null;
    pending.session = null;
    if (closed || pending.redispatches >= MAX_REDISPATCH) {
      settle(pending, new Http2RequestError(closed ? 'closed' : 'connection_lost', `${name}: request not processed: ${describeError(cause)}`, cause));
      return;
    }
    pending.redispatches += 1;
    queue.unshift(pending);
  }

  function settle(pending: Pending, result: Http2Response | Http2RequestError): void {
    if (pending.settled) return;
    pending.settled = true;
    clearTimeout(pending.timer);
    if (result instanceof Http2RequestError) pending.reject(result);
    else pending.resolve(result);
  }

  function checkIdleSessions(): void {
    const now = options.clock.now();
    for (const s of sessions) {
      if (s.active === 0 && now - s.lastActivity >= pingIdleMs) pingSession(s);
    }
  }

  /** PING; no answer within pingTimeoutMs → destroy, so requests stop waiting on a dead TCP connection. */
  function pingSession(s: PoolSession): void {
    if (!usable(s) || s.pinging) return;
    s.pinging = true;
    const timer = setTimeout(() => {
      log.warn({ provider: name, origin }, `no PING answer within ${pingTimeoutMs} ms; dropping the session`);
      s.session.destroy();
    }, pingTimeoutMs);
    timer.unref();
    const sent = s.session.ping((error) => {
      clearTimeout(timer);
      s.pinging = false;
      // Counts as activity: the next idle PING is due one interval later.
      s.lastActivity = options.clock.now();
      if (error && !s.session.destroyed) s.session.destroy();
    });
    if (!sent) {
      clearTimeout(timer);
      s.pinging = false;
    }
  }

  return {
    request(headers, body) {
      return new Promise<Http2Response>((resolve, reject) => {
        if (closed) return reject(new Http2RequestError('closed', `${name}: client is closed`));
        const pending: Pending = { headers, body, redispatches: 0, settled: false, stream: null, session: null, resolve, reject, timer: undefined as unknown as NodeJS.Timeout };
        pending.timer = setTimeout(() => {
          const index = queue.indexOf(pending);
          if (index >= 0) queue.splice(index, 1);
          settle(pending, new Http2RequestError('timeout', `${name}: no response within ${requestTimeoutMs} ms`));
          pending.stream?.close(NGHTTP2_CANCEL);
          // A slow answer may mean a dead connection: check it now rather than at the next idle PING.
          if (pending.session) pingSession(pending.session);
        }, requestTimeoutMs);
        queue.push(pending);
        pump();
      });
    },
    checkIdleSessions,
    stats: () => ({
      sessions: sessions.size,
      activeStreams: [...sessions].reduce((sum, s) => sum + s.active, 0),
      queued: queue.length,
      streamLimits: [...sessions].map(limit),
    }),
    async close() {
      closed = true;
      clearInterval(pingTimer);
      for (const pending of queue.splice(0)) settle(pending, new Http2RequestError('closed', `${name}: client closed`));
      await Promise.all(
        [...sessions].map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.session.destroyed) return resolve();
              // In-flight streams may finish; past the grace period the session is cut. A session already closing
              // (after a GOAWAY) is waited for too, so no handle outlives close().
              const timer = setTimeout(() => s.session.destroy(), CLOSE_GRACE_MS);
              s.session.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              if (!s.session.closed) s.session.close();
            }),
        ),
      );
    },
  };
}

/** Retry-After is seconds or an HTTP-date (RFC 9110 §10.2.3); a date in the past means now. */
export function parseRetryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
