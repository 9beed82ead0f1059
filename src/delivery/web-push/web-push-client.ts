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
import { parseRetryAfterMs } from '../http2/request.ts';
import { silentLogger, type DeliveryLogger } from '../http2/session-pool.ts';
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
 * Transport: undici's Agent (made on the first push), a keep-alive connection pool per origin over HTTP/1.1. Push endpoints are third-party
 * URLs on a handful of big origins (FCM, Mozilla, Apple, Microsoft) plus whatever a caller registers; every push
 * service speaks HTTP/1.1, undici 6's HTTP/2 is experimental, and the project's HTTP/2 pool
 * (http2/session-pool.ts) is built around one known origin (APNs, FCM) with no hook for the SSRF guard. undici takes
 * a `lookup`, so every new connection goes to an address the guard has just checked (DNS re-resolved then, as for
 * webhooks), and keeps connections open between pushes: 1,000 pushes to FCM reuse up to CONNECTIONS_PER_ORIGIN TLS
 * connections instead of opening 1,000. Concurrency per origin is bounded by OriginLanes.
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

/** Connections (and pushes in flight) per push-service origin. */
const CONNECTIONS_PER_ORIGIN = 32;
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
  /**
   * undici, imported and its Agent made on the first push: a process that sends no Web Push (most of a server's
   * idle life, an API-only process) never loads it.
   */
  let transport: Promise<{ agent: Agent; request: typeof request }> | undefined;
  const undici = () =>
    (transport ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connections: CONNECTIONS_PER_ORIGIN,
        pipelining: 1,
        // Never sooner than the deadline below, which bounds the whole push; these only stop undici's own 300 s defaults.
        headersTimeout: deadlineMs,
        bodyTimeout: deadlineMs,
        keepAliveTimeout: 30_000,
        connect: { lookup: guardedLookup(policy), timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS },
      }),
    })));
  const signer = createVapidSigner(options.keys, options.clock);
  const lanes = new OriginLanes(CONNECTIONS_PER_ORIGIN, UNRESPONSIVE_PAUSE_MS, options.clock);
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

  async function post(endpoint: URL, headers: Record<string, string>, body: Buffer): Promise<DeliveryOutcome> {
    const { agent, request } = await undici();
    const deadline = AbortSignal.timeout(deadlineMs);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(endpoint, { method: 'POST', headers, body, dispatcher: agent, signal: deadline });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'EADDRESSREFUSED') return { kind: 'rejected', reason: 'endpoint_refused' };
      if (TIMEOUT_CODES.has(code) || deadline.aborted) {
        lanes.pause(endpoint.origin);
        log.warn(
          { provider: 'web-push', origin: endpoint.origin, code: code || 'deadline' },
          'push service did not answer in time; pausing its origin',
        );
        return { kind: 'retry', reason: `web-push:timeout`, retryAfterMs: UNRESPONSIVE_PAUSE_MS };
      }
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
    const outcome = mapWebPushResponse(
      response.statusCode,
      parseRetryAfterMs(response.headers['retry-after'], options.clock.now()),
      excerpt.text,
    );
    if (outcome.kind !== 'delivered' && outcome.kind !== 'retry')
      log.debug(
        { provider: 'web-push', origin: endpoint.origin, status: response.statusCode, answer: excerpt.text },
        'push service refused a push',
      );
    return outcome;
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
          return post(endpoint, headers, encryptWebPush(clear, keys));
        },
        (remainingMs) => ({ kind: 'retry', reason: 'web-push:origin_unresponsive', retryAfterMs: remainingMs }),
      );
    },
    close: async () => {
      if (transport) await (await transport).agent.close();
    },
  };
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
