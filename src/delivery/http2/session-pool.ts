import http2 from 'node:http2';
import type { ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../domain/clock.ts';
import { type LeaveReason, PoolSession, type PoolSessionEvents, type PoolSessionOptions } from './pool-session.ts';
import {
  Http2RequestError,
  RequestDeadlines,
  describeError,
  parseRetryAfterMs,
  readStreamResponse,
} from './request.ts';

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
 * - GOAWAY: the session leaves the pool at once; streams the server never processed (id > lastStreamID, or refused)
 *   are retried transparently on another session; streams that may have been processed fail with `connection_lost`,
 *   and the delivery engine retries them (at least once, the collapse id makes a repeat replace, docs/design.md 3.3);
 * - a session that errors, is destroyed or fails a PING leaves the pool the same moment, its socket is cut and its
 *   in-flight requests are settled (resent or `connection_lost`) without waiting for node:http2's 'close' event,
 *   which a black-holed connection never delivers (pool-session.ts); the queue moves to a new session;
 * - a session idle for `pingIdleMs`, one where a request just timed out, or one that has heard nothing for
 *   SILENT_AFTER_MS while requests are in flight on it, gets a PING (Apple: "use HTTP/2 PING to check health",
 *   docs/protocols.md 1.6); after a timeout or such a silence it takes no new streams until the PING is answered, and
 *   a replacement may open meanwhile; no answer within `pingTimeoutMs` drops it;
 * - close() gives in-flight streams 2 s, all sessions at once, then cuts them: no handle stays open, and no stuck
 *   connection holds up shutdown.
 *
 * Per-session bookkeeping (connect, SETTINGS, GOAWAY, errors, PING, leaving the pool) is in pool-session.ts;
 * this file holds the queue, dispatch and the requests' lifecycle.
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
  /**
   * Resolves the host for every new connection; default DNS. Web Push passes the SSRF guard's (src/net/), so each
   * connection goes to an address checked just then.
   */
  lookup?: LookupFunction;
  logger?: DeliveryLogger;
  /** Name in log lines ("apns", "fcm"). */
  name?: string;
  /** Default 4: 4 × APNs' 500 streams = 2000 pushes in flight, more than one worker's send jobs need. */
  maxSessions?: number;
  /** Our own cap when a server advertises no limit (RFC 9113 leaves it unlimited). Default 1000. */
  maxStreamsPerSession?: number;
  /**
   * Waiting for a free stream, and then again for the answer once sent. Default 15 s (FCM asks for ≥ 10 s,
   * docs/protocols.md 3.5; node-apn uses 5 s).
   */
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

interface Pending {
  headers: OutgoingHttpHeaders;
  body: string | Buffer;
  /** Transparent re-dispatches after an unprocessed stream; bounded by MAX_REDISPATCH. */
  redispatches: number;
  settled: boolean;
  stream: ClientHttp2Stream | null;
  session: PoolSession | null;
  /** When its wait (for a stream, then for the answer) times out: request.ts. */
  deadline: number;
  resolve(response: Http2Response): void;
  reject(error: Http2RequestError): void;
}

/** The defaults of Http2PoolOptions; with SILENT_AFTER_MS they bound how long a dead connection goes unnoticed. */
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_PING_TIMEOUT_MS = 10_000;

const MAX_REDISPATCH = 3;
/**
 * close() lets in-flight streams finish this long, all sessions at once, then cuts them. A push is answered in tens
 * of milliseconds; one still open after 2 s is stuck, and `clarion serve` must be gone within 5 s of SIGTERM.
 */
const CLOSE_GRACE_MS = 2_000;
/**
 * A session with requests in flight that has heard nothing from the server (no answer, no PING answer) for this long
 * gets a health PING, checked every SILENCE_CHECK_MS. APNs and FCM answer in tens of milliseconds, so 2 s of silence
 * under load means a dead or silent connection: a peer gone quiet, or a reset that the socket did not report (the
 * chaos suite sees one now and then: tests/chaos/connection-faults.ts); a write, such as this PING, meets the reset.
 * Waiting for the first request's timeout instead held every push on the connection, and the send jobs waiting on
 * them, for 15 s after the fault. Real time, not the injected clock: it must pass in tests too.
 */
export const SILENT_AFTER_MS = 2_000;
export const SILENCE_CHECK_MS = 500;
/** After a failed connect while other sessions still serve, wait this long before trying another one. */
const RECONNECT_BACKOFF_MS = 1_000;
const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL } = http2.constants;
/** session.request() errors that mean the session can take no more streams (Node's codes). */
const SESSION_GONE_CODES = new Set([
  'ERR_HTTP2_INVALID_SESSION',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_OUT_OF_STREAMS',
  'ERR_HTTP2_STREAM_CANCEL',
]);

export function createHttp2Pool(options: Http2PoolOptions): Http2Pool {
  const origin = new URL(options.origin).origin;
  const log = options.logger ?? silentLogger;
  const name = options.name ?? 'http2';
  const maxSessions = options.maxSessions ?? 4;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const pingIdleMs = options.pingIdleMs ?? 5 * 60_000;
  const sessionOptions: PoolSessionOptions = {
    origin,
    clock: options.clock,
    logger: log,
    name,
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
    maxStreams: options.maxStreamsPerSession ?? 1000,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    pingTimeoutMs: options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS,
  };
  /** The sessions that may take streams (or soon will: connecting, or suspect until their PING answers). */
  const sessions = new Set<PoolSession>();
  /** Sessions out of the pool whose in-flight streams may still finish (after a GOAWAY), until they close. */
  const leaving = new Set<PoolSession>();
  /** Requests dispatched on each session, so a session that leaves dead can settle them at once. */
  const inFlight = new Map<PoolSession, Set<Pending>>();
  const queue: Pending[] = [];
  let closed = false;
  /**
   * performance.now() before which no extra session is opened. Real time, not the injected clock: it only spaces out
   * connection attempts (Apple treats rapid reconnecting as abuse, docs/protocols.md 1.6) and must pass in tests too.
   */
  let connectBackoffUntil = 0;
  const pingTimer = setInterval(() => checkIdleSessions(), Math.min(pingIdleMs, 30_000));
  pingTimer.unref();
  const silenceTimer = setInterval(() => checkSilentSessions(), SILENCE_CHECK_MS);
  silenceTimer.unref();

  const events: PoolSessionEvents = { onReady: () => pump(), onLeave: sessionLeft };

  function pump(): void {
    while (queue.length > 0) {
      let best: PoolSession | null = null;
      for (const s of sessions) {
        if (s.active < s.limit() && (!best || s.active < best.active)) best = s;
      }
      if (!best) break;
      dispatch(queue.shift() as Pending, best);
    }
    if (queue.length > 0 && shouldOpenSession()) openSession();
  }

  /**
   * Asked after every answer while requests wait (most of a large fan-out), so it allocates nothing: the array
   * version of these checks showed up in bench/fanout-cpu.ts profiles.
   */
  function shouldOpenSession(): boolean {
    if (closed) return false;
    let live = 0;
    for (const s of sessions) {
      // A suspect session (a request on it timed out, its PING is outstanding) does not count: its replacement may
      // connect now, so the queue does not wait out the PING timeout.
      if (s.suspect) continue;
      live += 1;
      if (!s.connected || !s.settingsReceived) return false; // one connecting at a time
      if (!s.established || s.active < s.limit()) return false; // only when every live session is full
    }
    if (live >= maxSessions) return false;
    return live === 0 || performance.now() >= connectBackoffUntil;
  }

  function openSession(): void {
    const s = new PoolSession(sessionOptions, events);
    sessions.add(s);
    inFlight.set(s, new Set());
  }

  /**
   * A session left the pool (pool-session.ts says when). After a GOAWAY its streams may still finish and are
   * left to do so; in every other case the connection is dead, so its streams are settled now — resent when the
   * server cannot have acted on them, else `connection_lost` — rather than when (or if) node:http2 closes them.
   */
  function sessionLeft(s: PoolSession, reason: LeaveReason, lastError: unknown): void {
    sessions.delete(s);
    const graceful = (reason === 'goaway' || reason === 'closed') && !s.session.destroyed;
    if (graceful && (inFlight.get(s)?.size ?? 0) > 0) {
      leaving.add(s);
      s.session.once('close', () => abandon(s, reason, lastError));
    } else {
      abandon(s, reason, lastError);
    }
    // Never usable (refused, TLS failure, or silent before its SETTINGS): a failed connection attempt.
    if (!s.settingsReceived) {
      connectBackoffUntil = performance.now() + RECONNECT_BACKOFF_MS;
      if (![...sessions].some((other) => other.settingsReceived)) {
        // Could not connect and nothing else can serve the queue: fail fast instead of reconnecting in a loop.
        const failure = new Http2RequestError(
          'connect',
          `cannot connect to ${origin}: ${describeError(lastError)}`,
          lastError,
        );
        for (const pending of queue.splice(0)) settle(pending, failure);
      }
    }
    pump();
  }

  /** Settles what is still in flight on a dead session, cuts its socket and forgets it. */
  function abandon(s: PoolSession, reason: LeaveReason, lastError: unknown): void {
    for (const pending of [...(inFlight.get(s) ?? [])]) {
      const stream = pending.stream;
      if (stream && wasUnprocessed(stream, s)) requeueOrFail(pending, lastError ?? new Error(`session ${reason}`));
      else
        settle(
          pending,
          new Http2RequestError(
            'connection_lost',
            `${name}: connection lost mid-request (${reason}): ${describeError(lastError ?? reason)}`,
            lastError ?? undefined,
          ),
        );
      stream?.close(NGHTTP2_CANCEL);
    }
    // Cuts the socket too: a session destroyed with a write pending never closes by itself.
    s.drop(reason);
    leaving.delete(s);
    inFlight.delete(s);
  }

  function dispatch(pending: Pending, s: PoolSession): void {
    let stream: ClientHttp2Stream;
    try {
      stream = s.request(pending.headers[':method'] ? pending.headers : { ':method': 'POST', ...pending.headers });
    } catch (error) {
      if (!SESSION_GONE_CODES.has((error as NodeJS.ErrnoException).code ?? '')) {
        // A header Node refuses (ERR_HTTP2_INVALID_HEADER_VALUE, …): this request is wrong, not the session.
        settle(
          pending,
          new Http2RequestError(
            'invalid_request',
            `${name}: request refused by node:http2: ${describeError(error)}`,
            error,
          ),
        );
        return;
      }
      // The session went away between the check and the request: nothing was sent.
      requeueOrFail(pending, error);
      s.drop('dropped', error);
      return;
    }
    pending.stream = stream;
    pending.session = s;
    inFlight.get(s)?.add(pending);
    armTimeout(pending);
    readStreamResponse(stream, (result) => {
      s.streamClosed(result.answered);
      inFlight.get(s)?.delete(pending);
      // A stream the pool already settled (its session left, or the request timed out) and maybe re-dispatched
      // elsewhere: only the stream the request currently rides on decides.
      if (pending.stream === stream) {
        if (result.answered) {
          const { status, headers, body } = result;
          const retryAfter = headers['retry-after'];
          settle(pending, {
            status,
            headers,
            body,
            retryAfterMs: retryAfter === undefined ? null : parseRetryAfterMs(retryAfter, options.clock.now()),
          });
        } else if (result.status === 0 && wasUnprocessed(stream, s)) {
          requeueOrFail(pending, result.error ?? new Error(`stream refused (rst ${result.rstCode})`));
        } else {
          settle(
            pending,
            new Http2RequestError(
              'connection_lost',
              `${name}: connection lost mid-request: ${describeError(result.error ?? `rst ${result.rstCode}`)}`,
              result.error,
            ),
          );
        }
      }
      pump();
    });
    // node:http2 has already ended the writable side of a GET (or HEAD) itself: writing a body then fails the stream.
    if (!stream.writableEnded) stream.end(pending.body);
  }

  /** Never sent, beyond the GOAWAY's lastStreamID, or refused: the server did not act on it, so resending is safe. */
  function wasUnprocessed(stream: ClientHttp2Stream, s: PoolSession): boolean {
    if (stream.id === undefined) return true;
    if (s.goawayLastStreamId !== null && stream.id > s.goawayLastStreamId) return true;
    return stream.rstCode === NGHTTP2_REFUSED_STREAM;
  }

  function requeueOrFail(pending: Pending, cause: unknown): void {
    if (pending.settled) return;
    if (pending.session) inFlight.get(pending.session)?.delete(pending);
    pending.stream = null;
    pending.session = null;
    if (closed || pending.redispatches >= MAX_REDISPATCH) {
      settle(
        pending,
        new Http2RequestError(
          closed ? 'closed' : 'connection_lost',
          `${name}: request not processed: ${describeError(cause)}`,
          cause,
        ),
      );
      return;
    }
    pending.redispatches += 1;
    queue.unshift(pending);
  }

  function settle(pending: Pending, result: Http2Response | Http2RequestError): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.deadline = 0;
    if (pending.session) inFlight.get(pending.session)?.delete(pending);
    pending.stream = null;
    if (result instanceof Http2RequestError) pending.reject(result);
    else pending.resolve(result);
  }

  /**
   * (Re)starts a request's timeout: when it has to wait for a stream, and again when it goes out on one. Counting the
   * queue wait into the answer's time would time out, and so repeat, pushes that were sent just before their deadline.
   */
  const deadlines = new RequestDeadlines<Pending>(requestTimeoutMs, (pending) => {
    const index = queue.indexOf(pending);
    if (index >= 0) queue.splice(index, 1);
    const { stream, session } = pending;
    settle(
      pending,
      new Http2RequestError(
        'timeout',
        stream
          ? `${name}: no response within ${requestTimeoutMs} ms`
          : `${name}: no free stream within ${requestTimeoutMs} ms`,
      ),
    );
    stream?.close(NGHTTP2_CANCEL);
    // A slow answer may mean a dead connection: check it now rather than at the next idle PING, and send
    // nothing more over it until it answers.
    if (session && !session.left) {
      session.ping(true);
      pump();
    }
  });
  function armTimeout(pending: Pending): void {
    deadlines.arm(pending);
  }

  function checkIdleSessions(): void {
    const now = options.clock.now();
    for (const s of sessions) {
      if (s.active === 0 && now - s.lastActivity >= pingIdleMs) s.ping(false);
    }
  }

  /** Busy sessions that fell silent get a health PING (SILENT_AFTER_MS). */
  function checkSilentSessions(): void {
    const now = performance.now();
    let suspected = false;
    for (const s of sessions) {
      if (s.active > 0 && !s.pingOutstanding && now - s.lastHeardAt >= SILENT_AFTER_MS) {
        log.debug(
          { provider: name, origin, activeStreams: s.active },
          'nothing heard on a busy provider session; checking it with a PING',
        );
        s.ping(true);
        suspected = true;
      }
    }
    // The queue may move to a replacement while the PING is out.
    if (suspected) pump();
  }

  return {
    request(headers, body) {
      return new Promise<Http2Response>((resolve, reject) => {
        if (closed) return reject(new Http2RequestError('closed', `${name}: client is closed`));
        const pending: Pending = {
          headers,
          body,
          redispatches: 0,
          settled: false,
          stream: null,
          session: null,
          resolve,
          reject,
          deadline: 0,
        };
        queue.push(pending);
        pump();
        // The wait for a stream is timed only when there is a wait: most requests go out at once, and one timer fewer
        // per push was measurable (bench/fanout-cpu.ts).
        if (!pending.stream && !pending.settled) armTimeout(pending);
      });
    },
    checkIdleSessions,
    stats: () => ({
      sessions: sessions.size,
      activeStreams: [...sessions, ...leaving].reduce((sum, s) => sum + s.active, 0),
      queued: queue.length,
      streamLimits: [...sessions].map((s) => s.limit()),
    }),
    async close() {
      closed = true;
      clearInterval(pingTimer);
      clearInterval(silenceTimer);
      deadlines.stop();
      for (const pending of queue.splice(0)) settle(pending, new Http2RequestError('closed', `${name}: client closed`));
      // All at once, each bounded by the grace period: no session, however stuck, holds up shutdown longer.
      await Promise.all(
        [...sessions, ...leaving].map((s) => s.close(CLOSE_GRACE_MS).then(() => abandon(s, 'closed', null))),
      );
    },
  };
}
