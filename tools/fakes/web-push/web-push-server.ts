import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Clock } from '../../../src/domain/clock.ts';
import {
  type AnyRequest,
  type ListenOptions,
  clientGone,
  connectionNumbering,
  listenSecureHttp1,
  listenSecureHttp2,
  readBody,
} from '../fake-http2-server.ts';
import { FakeRecord } from '../fake-record.ts';
import { type PushSubscriptionJson, type SimulatedBrowser, createSimulatedBrowser } from './web-push-browser.ts';
import { WebPushBehaviour, type WebPushLatencyContext, type WebPushOutcome } from './web-push-behaviour.ts';
import type { WebPushRecord } from './web-push-record.ts';
import { refusalBody, type WebPushRefusal, type WebPushServiceKind } from './web-push-answers.ts';
import { MAX_BODY_BYTES, checkPushRequest } from './web-push-request-rules.ts';
import { appleSubjectProblem, checkVapid } from './web-push-vapid.ts';
import { parseDeclarativePushMessage } from './web-push-declarative.ts';

/**
 * A fake Web Push service (RFC 8030, 8291, 8292; docs/protocols.md 4 and checklist 6.3) over TLS, HTTP/2 and HTTP/1.1
 * by ALPN, or HTTP/1.1 alone (`http2: false`); each record says which (`httpVersion`) and on which connection.
 * It hands out subscriptions the way a browser's push service does (an endpoint URL, with the browser's keys made by
 * a simulated browser), checks each message like a real service (VAPID signature and claims, the subscription's
 * applicationServerKey, TTL / Urgency / Topic, Content-Encoding, 4,096 bytes), answers 201 with `Location`, and
 * decrypts the message with the browser's private key so tests assert on the clear text a service worker would see.
 */
export interface FakeWebPushOptions extends ListenOptions {
  /** Time source for VAPID `exp` checks and the record. Default: system clock. */
  clock?: Clock;
  /**
   * Which push service this fake stands for (web-push-answers.ts): `generic` (default) refuses with Mozilla autopush's
   * JSON; `apple` refuses a bad VAPID JWT, including a subject Apple does not take, with `403 {"reason":"BadJwtToken"}`.
   */
  service?: WebPushServiceKind;
  /**
   * true (default): HTTP/2 over TLS, `h2` by ALPN and `http/1.1` for a client that does not offer it, as FCM serves
   * push endpoints; false: HTTP/1.1 only, as Mozilla's autopush served them behind its load balancers
   * (https://github.com/mozilla-services/autopush/issues/760). docs/protocols.md 4.6.
   */
  http2?: boolean;
  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS over HTTP/2: 100 by default, what FCM advertises
   * (https://github.com/mozilla-services/autopush/issues/760) and Node's own default.
   */
  maxConcurrentStreams?: number;
}

export interface FakeSubscription {
  id: string;
  endpoint: string;
  browser: SimulatedBrowser;
  /** `PushSubscription.toJSON()`: what a page registers with Clarion as a web subscriber's token. */
  json: PushSubscriptionJson;
}

export interface FakeWebPush {
  /** e.g. https://127.0.0.1:41234: the origin a VAPID `aud` must name. */
  readonly url: string;
  readonly port: number;
  readonly messages: readonly WebPushRecord[];
  /**
   * A new subscription, as `PushManager.subscribe()` makes one. With `applicationServerKey` (base64url), the service
   * binds it to that VAPID key and refuses (403) messages signed with any other, as real services do.
   */
  subscribe(options?: { applicationServerKey?: string }): FakeSubscription;
  /**
   * The browser goes offline (false) or comes back (true); browsers are online from the start. While it is offline the
   * service holds what it accepts for it, as RFC 8030 says a push service does: each message until its TTL runs out
   * (§5.2, https://www.rfc-editor.org/rfc/rfc8030#section-5.2; TTL 0 is not held at all), and a message with a Topic
   * replacing a held one with the same Topic (§5.4, https://www.rfc-editor.org/rfc/rfc8030#section-5.4). Coming back,
   * the browser receives what is still held and unexpired, oldest first.
   */
  setOnline(id: string, online: boolean): void;
  /** What the browser's service worker received so far, in order (every accepted message while it is online). */
  received(id: string): readonly WebPushRecord[];
  /** The browser unsubscribed (or the subscription expired): later messages get `status` (410 by default, or 404). */
  expire(id: string, status?: 404 | 410): void;
  waitForMessages(count: number, timeoutMs?: number): Promise<WebPushRecord[]>;
  waitForMessage(predicate: (message: WebPushRecord) => boolean, timeoutMs?: number): Promise<WebPushRecord>;
  onMessage(listener: (message: WebPushRecord) => void): () => void;
  /** Every later valid message to this subscription gets `outcome`; `null` removes it. */
  setSubscriptionOutcome(id: string, outcome: WebPushOutcome | null): void;
  /** The next `count` valid messages (whatever their subscription) get `outcome`. */
  failNext(count: number, outcome: WebPushOutcome): void;
  setLatency(latency: number | ((request: WebPushLatencyContext) => number)): void;
  /** Forgets recorded messages and configured behaviour; subscriptions stay. */
  reset(): void;
  close(): Promise<void>;
}

type AnyResponse = Http2ServerResponse | ServerResponse;

interface SubscriptionState {
  browser: SimulatedBrowser;
  applicationServerKey: string | null;
  gone: 404 | 410 | null;
  online: boolean;
  /** Accepted while offline, with when each expires (its TTL from acceptance). */
  held: Array<{ message: WebPushRecord; expiresAt: number }>;
  received: WebPushRecord[];
}

const DEFAULT_MAX_CONCURRENT_STREAMS = 100;
const PUSH_PATH = /^\/push\/([A-Za-z0-9_-]+)$/;
/** POST here (body `{"applicationServerKey"}` or empty) answers a new subscription's PushSubscription JSON. */
const SUBSCRIBE_PATH = '/subscriptions';

export async function startFakeWebPush(options: FakeWebPushOptions = {}): Promise<FakeWebPush> {
  const clock = options.clock ?? { now: () => Date.now() };
  const service = options.service ?? 'generic';
  const subscriptions = new Map<string, SubscriptionState>();
  const behaviour = new WebPushBehaviour();
  const messages = new FakeRecord<WebPushRecord>();
  const connectionOf = connectionNumbering();
  let messageCount = 0;
  let closed = false;

  const onRequest = (request: AnyRequest, response: AnyResponse): void => {
    receive(request, response).catch(() => {
      if (!response.headersSent && !clientGone(request)) answer(response, 500, {}, 'internal error');
    });
  };
  const listener =
    options.http2 === false
      ? await listenSecureHttp1(options, (server) => server.on('request', onRequest))
      : await listenSecureHttp2(
          {
            ...options,
            allowHTTP1: true,
            settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS },
          },
          (server) => server.on('request', onRequest),
        );

  async function receive(request: AnyRequest, response: AnyResponse): Promise<void> {
    // Read one byte past the limit: enough to know a body is too large without keeping a huge one.
    const { body, size } = await readBody(request, MAX_BODY_BYTES + 1);
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (path === SUBSCRIBE_PATH && request.method === 'POST') return subscribeOverHttp(body, response);
    const subscriptionId = PUSH_PATH.exec(path)?.[1] ?? null;
    const subscription = subscriptionId === null ? undefined : subscriptions.get(subscriptionId);
    const draft: WebPushRecord = {
      at: 0,
      connectionId: connectionOf(request),
      httpVersion: request.httpVersion,
      method: request.method ?? '',
      path,
      headers: { ...request.headers },
      subscriptionId,
      status: 0,
      reason: null,
      ttl: null,
      urgency: null,
      topic: null,
      vapid: null,
      vapidPublicKey: null,
      bodyBytes: size,
      clearText: null,
      message: null,
      declarative: null,
      decryptError: null,
      injected: false,
      answered: false,
    };

    // Order: the resource, then credentials, then the message's headers and size, then chaos (fake-behaviour.ts).
    let refusal: WebPushRefusal | null = null;
    // A refused VAPID JWT, in both services' words (web-push-answers.ts): autopush's errno 109, Apple's BadJwtToken.
    const vapidRefusal = (status: number, reason: string): WebPushRefusal => ({
      status: service === 'apple' ? 403 : status,
      reason,
      errno: 109,
      appleReason: 'BadJwtToken',
    });
    if (request.method !== 'POST') refusal = { status: 405, reason: 'only POST delivers a push message' };
    else if (!subscription) refusal = { status: 404, reason: 'no such subscription', errno: 102 };
    else if (subscription.gone)
      refusal = {
        status: subscription.gone,
        reason: 'the subscription is no longer valid',
        errno: subscription.gone === 410 ? 103 : 102,
      };
    if (!refusal && subscription) {
      const vapid = await checkVapid(headerOf(request, 'authorization'), listener.url, clock.now());
      draft.vapid = vapid.ok ? vapid.claims : null;
      draft.vapidPublicKey = vapid.ok ? vapid.publicKey : null;
      const rules = checkPushRequest(request.headers, size);
      const subjectProblem = vapid.ok && service === 'apple' ? appleSubjectProblem(vapid.claims.sub) : null;
      if (!vapid.ok) refusal = vapidRefusal(vapid.status, vapid.reason);
      else if (subjectProblem !== null) refusal = vapidRefusal(403, subjectProblem);
      else if (subscription.applicationServerKey !== null && subscription.applicationServerKey !== vapid.publicKey) {
        refusal = vapidRefusal(403, 'the VAPID key is not the applicationServerKey this subscription was made with');
      } else if (!rules.ok) refusal = rules;
      else {
        draft.ttl = rules.value.ttl;
        draft.urgency = rules.value.urgency;
        draft.topic = rules.value.topic;
        const injected = behaviour.takeInjectedFailure() ?? behaviour.tokenOutcome(subscriptionId!);
        if (injected?.dripBodyMs !== undefined) {
          draft.injected = true;
          decryptInto(draft, subscription.browser, body);
          messages.add({ ...draft, at: clock.now(), status: injected.status, answered: !clientGone(request) });
          return drip(request, response, injected.status, injected.dripBodyMs);
        }
        if (injected) {
          draft.injected = true;
          refusal = {
            status: injected.status,
            reason: `injected ${injected.status}`,
            ...(injected.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: injected.retryAfterSeconds }),
            ...(injected.body === undefined ? {} : { body: injected.body }),
          };
        } else {
          decryptInto(draft, subscription.browser, body);
        }
      }
    }

    const delayMs = behaviour.latencyFor({ subscriptionId });
    if (delayMs > 0) await listener.delay(delayMs);
    const answered = !clientGone(request);
    if (refusal) {
      messages.add({ ...draft, at: clock.now(), status: refusal.status, reason: refusal.reason, answered });
      if (answered) {
        const { contentType, text } = refusalBody(service, refusal);
        answer(
          response,
          refusal.status,
          {
            'content-type': contentType,
            ...(refusal.retryAfterSeconds === undefined ? {} : { 'retry-after': String(refusal.retryAfterSeconds) }),
          },
          text,
        );
      }
      return;
    }
    messageCount += 1;
    const location = `${listener.url}/message/${messageCount}-${randomBytes(6).toString('base64url')}`;
    const accepted: WebPushRecord = { ...draft, at: clock.now(), status: 201, answered };
    messages.add(accepted);
    if (subscription) hold(subscription, accepted);
    if (answered) answer(response, 201, { location, ttl: String(draft.ttl) }, '');
  }

  /** An accepted message reaches the browser now, or waits for it under its TTL and Topic (setOnline). */
  function hold(subscription: SubscriptionState, message: WebPushRecord): void {
    if (subscription.online) {
      subscription.received.push(message);
      return;
    }
    const ttl = message.ttl ?? 0;
    if (message.topic !== null)
      subscription.held = subscription.held.filter((held) => held.message.topic !== message.topic);
    if (ttl > 0) subscription.held.push({ message, expiresAt: message.at + ttl * 1000 });
  }

  function stateOf(id: string): SubscriptionState {
    const subscription = subscriptions.get(id);
    if (!subscription) throw new Error(`no subscription ${id}`);
    return subscription;
  }

  /** Headers now, then a byte of body every `everyMs`, until the client goes or the fake closes (its delays end then). */
  async function drip(request: AnyRequest, response: AnyResponse, status: number, everyMs: number): Promise<void> {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    // Both response types write a string; the first byte sends the headers with it.
    const body = response as unknown as { write(chunk: string): boolean; destroyed: boolean };
    while (!closed && !clientGone(request) && !body.destroyed) {
      body.write('.');
      await listener.delay(everyMs);
    }
  }

  function subscribe({ applicationServerKey }: { applicationServerKey?: string } = {}): FakeSubscription {
    const id = randomBytes(16).toString('base64url');
    const browser = createSimulatedBrowser();
    subscriptions.set(id, {
      browser,
      applicationServerKey: applicationServerKey?.replace(/=+$/, '') ?? null,
      gone: null,
      online: true,
      held: [],
      received: [],
    });
    const endpoint = `${listener.url}/push/${id}`;
    return { id, endpoint, browser, json: browser.subscription(endpoint) };
  }

  /** For trying Clarion by hand (tools/run-fakes.ts): a subscription made over HTTP, as a browser would get one. */
  function subscribeOverHttp(body: Buffer, response: AnyResponse): void {
    let applicationServerKey: string | undefined;
    try {
      const parsed = body.length > 0 ? (JSON.parse(body.toString('utf8')) as { applicationServerKey?: unknown }) : {};
      if (typeof parsed.applicationServerKey === 'string') applicationServerKey = parsed.applicationServerKey;
    } catch {
      return answer(response, 400, {}, 'the body must be JSON: {"applicationServerKey": "<base64url>"} or empty');
    }
    const text = JSON.stringify(subscribe(applicationServerKey === undefined ? {} : { applicationServerKey }).json);
    response.writeHead(201, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    response.end(text);
  }

  return {
    url: listener.url,
    port: listener.port,
    messages: messages.entries,
    subscribe,
    setOnline: (id, online) => {
      const subscription = stateOf(id);
      subscription.online = online;
      if (!online) return;
      const now = clock.now();
      for (const { message, expiresAt } of subscription.held) if (expiresAt > now) subscription.received.push(message);
      subscription.held = [];
    },
    received: (id) => stateOf(id).received,
    expire: (id, status = 410) => {
      stateOf(id).gone = status;
    },
    waitForMessages: (count, timeoutMs) => messages.waitForCount(count, timeoutMs),
    waitForMessage: (predicate, timeoutMs) => messages.waitForMatch(predicate, timeoutMs),
    onMessage: (listener) => messages.subscribe(listener),
    setSubscriptionOutcome: (id, outcome) => behaviour.setTokenOutcome(id, outcome),
    failNext: (count, outcome) => behaviour.failNext(count, outcome),
    setLatency: (latency) => behaviour.setLatency(latency),
    reset: () => {
      behaviour.reset();
      messages.clear();
    },
    close: async () => {
      closed = true;
      messages.abortWaits('the fake Web Push service was closed');
      await listener.close();
    },
  };
}

function decryptInto(record: WebPushRecord, browser: SimulatedBrowser, body: Buffer): void {
  try {
    record.clearText = browser.decrypt(body).toString('utf8');
  } catch (error) {
    record.decryptError = (error as Error).message;
    return;
  }
  try {
    record.message = JSON.parse(record.clearText);
  } catch {
    record.message = null;
  }
  record.declarative = parseDeclarativePushMessage(record.message);
}

function headerOf(request: AnyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function answer(response: AnyResponse, status: number, headers: Record<string, string>, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    ...headers,
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}
