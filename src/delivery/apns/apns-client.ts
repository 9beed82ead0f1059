import type { OutgoingHttpHeaders } from 'node:http2';
import type { Clock } from '../../domain/clock.ts';
import { RECEIPT_MEMBER_BYTES, withReceiptMember } from '../receipt-member.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import type { PushContent } from '../push-content.ts';
import { parseApnsSigningKey, readApnsSigningKey } from '../provider-credentials.ts';
import {
  APNS_MAX_PAYLOAD_BYTES,
  type ApnsPayloadOptions,
  buildApnsHeaders,
  serializeApnsPayload,
} from './apns-payload.ts';
import { type ApnsProviderToken, type ApnsProviderTokens, createApnsProviderTokens } from './apns-provider-token.ts';
import { mapApnsResponse, parseApnsErrorBody } from './apns-response.ts';
import { requestFailureOutcome } from '../http2/request.ts';
import { type DeliveryLogger, type Http2Pool, createHttp2Pool, silentLogger } from '../http2/session-pool.ts';

/**
 * The APNs provider client: token auth (apns-provider-token.ts), pooled HTTP/2 (http2/session-pool.ts), one outcome per
 * push (apns-response.ts). Many concurrent send() calls share the pool's streams.
 */
export interface ApnsClientOptions {
  /** CLARION_APNS_URL, e.g. https://api.push.apple.com. */
  url: string;
  /** CLARION_APNS_KEY_FILE (the .p8), or its contents in keyPem. */
  keyFile?: string;
  keyPem?: string;
  /** CLARION_APNS_KEY_ID. */
  keyId: string;
  /** CLARION_APNS_TEAM_ID. */
  teamId: string;
  /** CLARION_APNS_TOPIC, the bundle id. */
  topic: string;
  clock: Clock;
  /** The process's provider tokens, one per key (apns-provider-token.ts); absent: a token of this client's own. */
  providerTokens?: ApnsProviderTokens;
  /** Extra CA to trust (tests); otherwise the process's CAs, including NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer;
  logger?: DeliveryLogger;
  /** Pool tuning; defaults in http2/session-pool.ts. */
  maxSessions?: number;
  requestTimeoutMs?: number;
  pingIdleMs?: number;
}

/** `receipt`: the push's receipt (domain/receipt.ts), a top-level custom key of its payload, or none. */
export type ApnsSendOptions = ApnsPayloadOptions & { receipt?: string };

export interface ApnsClient {
  /** CLARION_APNS_TOPIC; Live Activity pushes use apnsLiveActivityTopic(topic). */
  readonly topic: string;
  /** An alert push built from `content`. */
  send(token: string, content: PushContent, options?: ApnsSendOptions): Promise<DeliveryOutcome>;
  /**
   * Any push: `headers` are the apns-* headers (apns-push-type, apns-topic, apns-priority, …); `:path` and
   * `authorization` are set here. For Live Activities: apns-push-type liveactivity, topic apnsLiveActivityTopic().
   */
  sendRaw(token: string, headers: Record<string, string>, payload: string | object): Promise<DeliveryOutcome>;
  /** The pool's counters, for metrics and tests. */
  stats(): ReturnType<Http2Pool['stats']>;
  /** PINGs idle sessions now (normally on a timer). */
  checkIdleSessions(): void;
  close(): Promise<void>;
}

/** Topic for Live Activity pushes (docs/protocols.md 1.3, 2.1). */
export function apnsLiveActivityTopic(topic: string): string {
  return `${topic}.push-type.liveactivity`;
}

/** Apple: tokens are hex and variable length (docs/protocols.md 1.3); anything else would be a BadDeviceToken or BadPath. */
const HEX_TOKEN = /^(?:[0-9a-fA-F]{2})+$/;

const CLOCK_FIX =
  "APNs says the provider token is expired although Clarion signed it less than 20 minutes ago, so this machine's clock is at least 40 minutes behind Apple's. Synchronise the system clock (NTP); Clarion signs tokens with the current time.";

export function createApnsClient(options: ApnsClientOptions): ApnsClient {
  const key =
    options.keyPem !== undefined
      ? parseApnsSigningKey(options.keyPem)
      : readApnsSigningKey(requireKeyFile(options.keyFile));
  const log = options.logger ?? silentLogger;
  const tokens: ApnsProviderToken = (options.providerTokens ?? createApnsProviderTokens(options.clock)).forKey({
    key,
    keyId: options.keyId,
    teamId: options.teamId,
  });
  const pool = createHttp2Pool({
    origin: options.url,
    clock: options.clock,
    name: 'apns',
    logger: log,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.pingIdleMs !== undefined ? { pingIdleMs: options.pingIdleMs } : {}),
  });

  async function post(token: string, headers: Record<string, string>, body: string): Promise<DeliveryOutcome> {
    if (!HEX_TOKEN.test(token))
      return { kind: 'token_dead', reason: 'token_invalid', providerReason: 'BadDeviceToken' };
    let jwt = tokens.fresh() ?? (await tokens.current());
    // At most two attempts: the second only after renewing the JWT for ExpiredProviderToken (node-apn and
    // apns2(npm) do the same, docs/protocols.md 1.2).
    for (let attempt = 1; ; attempt += 1) {
      const requestHeaders: OutgoingHttpHeaders = {
        ...headers,
        ':method': 'POST',
        ':path': `/3/device/${token}`,
        authorization: bearerOf(jwt),
      };
      let outcome;
      try {
        const response = await pool.request(requestHeaders, body);
        // Nearly every answer: nothing to parse or map (no body, no reason).
        if (response.status === 200) return { kind: 'delivered' };
        const { reason, timestamp } = parseApnsErrorBody(response.body);
        outcome = mapApnsResponse({ status: response.status, reason, retryAfterMs: response.retryAfterMs, timestamp });
      } catch (error) {
        return logged(requestFailureOutcome(error, 'apns', 'CLARION_APNS_URL'));
      }
      if (outcome.kind !== 'renew_token') return logged(outcome);
      const decision = attempt === 1 ? await tokens.renewAfterExpired(jwt) : null;
      if (!decision?.renewed) {
        const ageMs = decision && !decision.renewed ? decision.ageMs : null;
        log.warn({ provider: 'apns', tokenAgeMs: ageMs, attempt }, 'APNs rejected a fresh provider token as expired');
        return { kind: 'fatal', reason: 'apns:ExpiredProviderToken', fix: CLOCK_FIX };
      }
      log.info({ provider: 'apns' }, 'APNs provider token expired; retrying with a renewed token');
      jwt = decision.token;
    }
  }

  /** `bearer <jwt>`, built once per JWT rather than a new 230-byte string per push. */
  let bearer = { jwt: '', header: '' };
  function bearerOf(jwt: string): string {
    if (bearer.jwt !== jwt) bearer = { jwt, header: `bearer ${jwt}` };
    return bearer.header;
  }

  function logged(outcome: DeliveryOutcome): DeliveryOutcome {
    if (outcome.kind === 'fatal')
      log.warn(
        { provider: 'apns', reason: outcome.reason, fix: outcome.fix },
        'APNs push failed: configuration problem',
      );
    return outcome;
  }

  /**
   * Body and headers built once per content object, i.e. once per send job: the job passes the same PushContent for
   * each of its 500 tokens, and only `:path` differs between them. Building them per push cost ~6 µs of the ~150 µs
   * a push cost in bench/fanout-cpu.ts. apns-expiration is computed when the batch starts: it is an
   * absolute moment (or 30 days ahead), so the seconds a batch takes change nothing that matters.
   */
  const prepared = new WeakMap<
    PushContent,
    { threadId: string | null; withReceipt: boolean; body: string; bodyBytes: number; headers: Record<string, string> }
  >();
  function prepare(content: PushContent, sendOptions: ApnsSendOptions) {
    const threadId = sendOptions.threadId ?? null;
    const withReceipt = sendOptions.receipt !== undefined;
    let entry = prepared.get(content);
    if (entry?.threadId !== threadId || entry.withReceipt !== withReceipt) {
      const body = serializeApnsPayload(content, { threadId, withReceipt });
      entry = {
        threadId,
        withReceipt,
        body,
        bodyBytes: Buffer.byteLength(body, 'utf8'),
        headers: buildApnsHeaders(content, { topic: options.topic, now: options.clock.now() }),
      };
      prepared.set(content, entry);
    }
    return entry;
  }

  return {
    topic: options.topic,
    // Not async: returning post()'s promise saves a promise and its microtask turns per push.
    send(token, content, sendOptions = {}) {
      const { body, bodyBytes, headers } = prepare(content, sendOptions);
      const { receipt } = sendOptions;
      // Refused here rather than by APNs: saves the round trip, and Apple disconnects connections that produce many
      // errors (docs/protocols.md 1.5). The API checks the same size, a receipt's room included, before accepting.
      if (bodyBytes + (receipt === undefined ? 0 : RECEIPT_MEMBER_BYTES) > APNS_MAX_PAYLOAD_BYTES)
        return Promise.resolve({ kind: 'rejected', reason: 'apns:PayloadTooLarge' });
      return post(token, headers, withReceiptMember(body, receipt));
    },
    sendRaw(token, headers, payload) {
      return post(token, headers, typeof payload === 'string' ? payload : JSON.stringify(payload));
    },
    stats: () => pool.stats(),
    checkIdleSessions: () => pool.checkIdleSessions(),
    close: () => pool.close(),
  };
}

function requireKeyFile(keyFile: string | undefined): string {
  if (keyFile === undefined || keyFile === '')
    throw new Error('APNs client: set CLARION_APNS_KEY_FILE (keyFile) or pass keyPem');
  return keyFile;
}
