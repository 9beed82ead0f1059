import { isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Agent, Dispatcher, request } from 'undici';
import type { Clock } from '../../domain/clock.ts';
import {
  guardedLookup,
  hostOf,
  refuseLiteralHost,
  systemResolver,
  type ResolveHost,
} from '../../net/outbound-url-guard.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import { Http2RequestError, parseRetryAfterMs } from '../http2/request.ts';
import { createHttp2Pool, silentLogger, type DeliveryLogger, type Http2Pool } from '../http2/session-pool.ts';
import type { PushContent } from '../push-content.ts';
import type { VapidKeys } from './vapid-keys.ts';
import { createVapidSigner } from './vapid-token.ts';
import { encryptedWebPushBytes, encryptWebPush, WEB_PUSH_MAX_BODY_BYTES } from './web-push-encryption.ts';
import { buildWebPushHeaders, serializeWebPushMessage } from './web-push-message.ts';
import { withReceiptMemberBytes } from '../receipt-member.ts';
import { OriginLanes } from './web-push-origin-lanes.ts';
import { mapWebPushResponse } from './web-push-response.ts';
import { parseStoredSubscription } from './web-push-subscription.ts';

/**
 * The Web Push client: one push = encrypt for the browser (web-push-encryption.ts), sign VAPID for the push service's
 * origin (vapid-token.ts), POST to the subscription's endpoint, map the status (web-push-response.ts).
 *
 * Transport: HTTP/2 where the push service offers it, HTTP/1.1 where it does not, learnt per origin by ALPN (RFC 7301)
 * from one TLS handshake before the origin's first push (docs/protocols.md 4.6):
 * - HTTP/2: the project's HTTP/2 pool (http2/session-pool.ts), as for APNs and FCM: up to H2_SESSIONS_PER_ORIGIN
 *   connections, each carrying as many streams as the service's SETTINGS_MAX_CONCURRENT_STREAMS allows (FCM: 100),
 *   H2_IN_FLIGHT_PER_ORIGIN pushes in flight per origin. undici 6's HTTP/2 settles concurrent streams in the order they
 *   were sent (a stream that ends before an earlier one fails its neighbours), so it is not used for HTTP/2.
 * - HTTP/1.1: undici's Agent, a keep-alive pool of CONNECTIONS_PER_ORIGIN connections, one push each at a time.
 * - Not known yet: one push at a time (the one whose handshake tells), then the rest at once.
 * Every connection, the ALPN handshake included, resolves its host with the SSRF guard's `lookup` (src/net/), so it
 * goes to an address checked just then (DNS re-resolved, as for webhooks), whatever protocol it speaks. Concurrency
 * per origin is bounded by OriginLanes.
 *
 * Endpoints are chosen by whoever registers a subscription, so: https only, the SSRF guard at connect, no redirects,
 * a total deadline per push, at most RESPONSE_EXCERPT_BYTES of an answer read, and an unresponsive origin paused
 * (OriginLanes).
 */
export interface WebPushClientOptions {
  keys: VapidKeys;
  clock: Clock;
  /** CLARION_ALLOW_PRIVATE_ADDRESSES. */
  allowPrivate: boolean;
  /** Opened on a click of a notification without a url, where the browser shows it by itself: CLARION_BASE_URL. */
  fallbackUrl: string;
  resolve?: ResolveHost;
  logger?: DeliveryLogger;
  /** Time allowed to connect; and for the whole push (WEB_PUSH_DEADLINE_MS); defaults below. */
  connectTimeoutMs?: number;
  deadlineMs?: number;
}

export interface WebPushClient {
  /** `receipt`: the push's receipt (domain/receipt.ts), a member of its JSON, or none. */
  send(token: string, content: PushContent, receipt?: string): Promise<DeliveryOutcome>;
  close(): Promise<void>;
}

/** HTTP/1.1: connections (and pushes in flight, one each) per push-service origin. */
const CONNECTIONS_PER_ORIGIN = 32;
/**
 * HTTP/2: pushes in flight per origin, and the connections they share. FCM advertises 100 streams a connection
 * (docs/protocols.md 4.6); two such carry 200 pushes at once, 4,000–10,000 pushes/s at the services' 20–50 ms, more
 * than one process encrypts (~455 µs a push, docs/performance.md). A service that allows fewer streams gets them, and
 * the rest wait in the pool's queue.
 */
const H2_IN_FLIGHT_PER_ORIGIN = 200;
const H2_SESSIONS_PER_ORIGIN = 2;
/** Origins whose protocol is remembered, and HTTP/2 pools kept open: least recently used forgotten (closed) first. */
const MAX_KNOWN_ORIGINS = 1_000;
const MAX_H2_POOLS = 16;
/** Push services answer in well under a second; an endpoint silent this long is treated as unresponsive. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * The whole push, from the connection to the end of the answer's excerpt, as the webhook sender's 10 s
 * (src/webhooks/webhook-sender.ts): a total, not undici's headers and body timeouts, which restart with every byte, so
 * an endpoint that answers at once and then drips a byte every few seconds held its push, its batch of up to 500 and a
 * worker slot for over an hour. The status counts once it has come: a body cut off at the deadline keeps it.
 */
export const WEB_PUSH_DEADLINE_MS = 10_000;
/** How long an origin that timed out is left alone before it is tried again. */
const UNRESPONSIVE_PAUSE_MS = 60_000;
/** Enough of an error answer for the log and the service's JSON reason (web-push-response.ts). */
const RESPONSE_EXCERPT_BYTES = 512;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function createWebPushClient(options: WebPushClientOptions): WebPushClient {
  const log = options.logger ?? silentLogger;
  const deadlineMs = options.deadlineMs ?? WEB_PUSH_DEADLINE_MS;
  const policy = { allowPrivate: options.allowPrivate, resolve: options.resolve ?? systemResolver };
  const lookup = guardedLookup(policy);
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  /**
   * undici, imported and its Agent made on the first push that goes over HTTP/1.1: a process that sends no Web Push
   * (most of a server's idle life, an API-only process), or only to HTTP/2 services, never loads it.
   */
  let http1: Promise<{ agent: Agent; request: typeof request }> | undefined;
  const undici = () =>
    (http1 ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connections: CONNECTIONS_PER_ORIGIN,
        pipelining: 1,
        // Never sooner than the deadline below, which bounds the whole push; these only stop undici's own 300 s defaults.
        headersTimeout: deadlineMs,
        bodyTimeout: deadlineMs,
        keepAliveTimeout: 30_000,
        connect: { lookup, timeout: connectTimeoutMs },
      }),
    })));
  /** What each origin speaks, least recently used first; an HTTP/2 origin has its pool. */
  const transports = new Map<string, Transport>();
  const inFlightLimit = (origin: string): number => {
    const transport = transports.get(origin);
    if (!transport) return 1;
    return transport.kind === 'h2' ? H2_IN_FLIGHT_PER_ORIGIN : CONNECTIONS_PER_ORIGIN;
  };
  const signer = createVapidSigner(options.keys, options.clock);
  const lanes = new OriginLanes(inFlightLimit, UNRESPONSIVE_PAUSE_MS, options.clock);
  /**
   * The clear text serialised once per content object, as the APNs and FCM clients do (once per send job, whose
   * pushes share it); only the encryption, which is per browser by design (RFC 8291), runs per push.
   */
  const clearTexts = new WeakMap<PushContent, Buffer>();
  const clearTextOf = (content: PushContent): Buffer => {
    let clear = clearTexts.get(content);
    if (!clear) {
      clear = serializeWebPushMessage(content, options.fallbackUrl);
      clearTexts.set(content, clear);
    }
    return clear;
  };

  function timedOut(origin: string, code: string): DeliveryOutcome {
    lanes.pause(origin);
    log.warn({ provider: 'web-push', origin, code }, 'push service did not answer in time; pausing its origin');
    return { kind: 'retry', reason: `web-push:timeout`, retryAfterMs: UNRESPONSIVE_PAUSE_MS };
  }

  /** The origin's transport, learnt by one guarded TLS handshake the first time; or the outcome of a failed one. */
  async function transportFor(endpoint: URL): Promise<Transport | DeliveryOutcome> {
    const origin = endpoint.origin;
    const known = transports.get(origin);
    if (known) {
      transports.delete(origin);
      transports.set(origin, known);
      return known;
    }
    const protocol = await negotiate(endpoint, lookup, connectTimeoutMs);
    if (protocol === 'refused') return { kind: 'rejected', reason: 'endpoint_refused' };
    if (protocol === 'timeout') return timedOut(origin, 'UND_ERR_CONNECT_TIMEOUT');
    // Any other failure: the HTTP/1.1 path tries, and reports it as it always has; nothing is remembered.
    if (protocol === 'failed') return { kind: 'h1' };
    const transport: Transport =
      protocol === 'h2'
        ? {
            kind: 'h2',
            pool: createHttp2Pool({
              origin,
              clock: options.clock,
              lookup,
              logger: log,
              name: 'web-push',
              maxSessions: H2_SESSIONS_PER_ORIGIN,
              requestTimeoutMs: deadlineMs,
              connectTimeoutMs,
            }),
          }
        : { kind: 'h1' };
    remember(origin, transport);
    lanes.widen(origin);
    return transport;
  }

  function remember(origin: string, transport: Transport): void {
    transports.set(origin, transport);
    let pools = [...transports.values()].filter((known) => known.kind === 'h2').length;
    for (const [known, old] of transports) {
      if (transports.size <= MAX_KNOWN_ORIGINS && pools <= MAX_H2_POOLS) break;
      if (known === origin) continue;
      if (old.kind === 'h2') {
        pools -= 1;
        void old.pool.close();
      } else if (transports.size <= MAX_KNOWN_ORIGINS) continue;
      transports.delete(known);
    }
  }

  async function postH2(
    pool: Http2Pool,
    endpoint: URL,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<DeliveryOutcome> {
    try {
      const response = await pool.request({ ':path': `${endpoint.pathname}${endpoint.search}`, ...headers }, body);
      return outcomeOf(
        endpoint,
        response.status,
        response.retryAfterMs,
        response.body.slice(0, RESPONSE_EXCERPT_BYTES),
      );
    } catch (error) {
      if (error instanceof Http2RequestError) {
        if (error.causeCode === 'EADDRESSREFUSED') return { kind: 'rejected', reason: 'endpoint_refused' };
        // Over HTTP/2 an answer whose body does not end in time is given up whole: retried, the origin paused.
        if (error.kind === 'timeout') return timedOut(endpoint.origin, 'deadline');
        // No HTTP/2 connection could be made (the service may have dropped HTTP/2): the next push asks ALPN again.
        if (error.kind === 'connect' && transports.get(endpoint.origin)?.kind === 'h2') {
          transports.delete(endpoint.origin);
          void pool.close();
        }
      }
      throw error;
    }
  }

  function outcomeOf(endpoint: URL, status: number, retryAfterMs: number | null, excerpt: string): DeliveryOutcome {
    const outcome = mapWebPushResponse(status, retryAfterMs, excerpt);
    if (outcome.kind !== 'delivered' && outcome.kind !== 'retry')
      log.debug(
        { provider: 'web-push', origin: endpoint.origin, status, answer: excerpt },
        'push service refused a push',
      );
    return outcome;
  }

  async function post(endpoint: URL, headers: Record<string, string>, body: Buffer): Promise<DeliveryOutcome> {
    const deadline = AbortSignal.timeout(deadlineMs);
    let response: Dispatcher.ResponseData;
    try {
      const { agent, request } = await undici();
      response = await request(endpoint, { method: 'POST', headers, body, dispatcher: agent, signal: deadline });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'EADDRESSREFUSED') return { kind: 'rejected', reason: 'endpoint_refused' };
      if (TIMEOUT_CODES.has(code) || deadline.aborted) return timedOut(endpoint.origin, code || 'deadline');
      throw error;
    }
    const excerpt = await readExcerpt(response.body);
    if (excerpt.cutOff) {
      // Answered, then too slow to finish: the push stands as answered, and the origin's other pushes wait a while.
      lanes.pause(endpoint.origin);
      log.warn(
        { provider: 'web-push', origin: endpoint.origin, status: response.statusCode },
        'push service did not finish its answer in time; pausing its origin',
      );
    }
    const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], options.clock.now());
    return outcomeOf(endpoint, response.statusCode, retryAfterMs, excerpt.text);
  }

  return {
    async send(token, content, receipt) {
      const subscription = parseStoredSubscription(token);
      if (!subscription)
        return { kind: 'token_dead', reason: 'token_invalid', providerReason: 'web-push:invalid_subscription' };
      const { endpoint, keys } = subscription;
      // IP-literal hosts never reach `lookup` (sockets connect to them directly), so they are judged here.
      if (!options.allowPrivate && refuseLiteralHost(hostOf(endpoint)))
        return { kind: 'rejected', reason: 'endpoint_refused' };
      const clear = withReceiptMemberBytes(clearTextOf(content), receipt);
      // The API refuses larger content at accept (platform-payload-size.ts); this guards what reached the queue before.
      if (encryptedWebPushBytes(clear.length) > WEB_PUSH_MAX_BODY_BYTES)
        return { kind: 'rejected', reason: 'web-push:PayloadTooLarge' };
      return lanes.run(
        endpoint.origin,
        async () => {
          const headers = {
            ...buildWebPushHeaders(content, options.clock.now()),
            authorization: await signer.authorization(endpoint.origin),
          };
          const transport = await transportFor(endpoint);
          if (transport.kind !== 'h1' && transport.kind !== 'h2') return transport;
          const encrypted = encryptWebPush(clear, keys);
          return transport.kind === 'h2'
            ? postH2(transport.pool, endpoint, headers, encrypted)
            : post(endpoint, headers, encrypted);
        },
        (remainingMs) => ({ kind: 'retry', reason: 'web-push:origin_unresponsive', retryAfterMs: remainingMs }),
      );
    },
    close: async () => {
      const pools = [...transports.values()].flatMap((known) => (known.kind === 'h2' ? [known.pool] : []));
      transports.clear();
      const agent = http1 ? (await http1).agent : null;
      await Promise.all([agent?.close(), ...pools.map((pool) => pool.close())]);
    },
  };
}

type Transport = { kind: 'h1' } | { kind: 'h2'; pool: Http2Pool };

/**
 * Which protocol the origin offers, by ALPN: one TLS handshake to an address the SSRF guard's `lookup` checked, then
 * closed. `failed`: any other error (TLS trust, a reset), left to the HTTP/1.1 path to report.
 */
function negotiate(
  endpoint: URL,
  lookup: ReturnType<typeof guardedLookup>,
  timeoutMs: number,
): Promise<'h2' | 'http/1.1' | 'refused' | 'timeout' | 'failed'> {
  const host = endpoint.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host,
      port: Number(endpoint.port || 443),
      ALPNProtocols: ['h2', 'http/1.1'],
      lookup,
      ...(isIP(host) ? {} : { servername: host }),
    });
    const done = (result: 'h2' | 'http/1.1' | 'refused' | 'timeout' | 'failed'): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    socket.once('secureConnect', () => done(socket.alpnProtocol === 'h2' ? 'h2' : 'http/1.1'));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'EADDRESSREFUSED' ? 'refused' : 'failed'),
    );
  });
}

/**
 * The first RESPONSE_EXCERPT_BYTES of an answer; the rest is not read (the connection is dropped if there is more).
 * `cutOff`: the body failed before it ended, which the push's deadline does to one that drips (its signal aborts it).
 */
async function readExcerpt(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
): Promise<{ text: string; cutOff: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let cutOff = false;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) {
        body.destroy();
        break;
      }
    }
  } catch {
    cutOff = true;
  }
  return { text: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'), cutOff };
}
