import type { Clock } from '../../domain/clock.ts';
import { requestFailureOutcome } from '../http2/request.ts';
import { type DeliveryLogger, type Http2Pool, createHttp2Pool, silentLogger } from '../http2/session-pool.ts';
import { RECEIPT_FIELD } from '../../domain/receipt.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import type { PushContent } from '../push-content.ts';
import {
  type ParsedFcmServiceAccount,
  parseFcmServiceAccount,
  readFcmServiceAccount,
} from '../provider-credentials.ts';
import { type FcmAccessToken, FcmTokenError, createFcmAccessToken } from './fcm-access-token.ts';
import { tokenUriRefusal, type TokenUriPolicy } from './fcm-token-uri.ts';
import { type FcmDataOptions, type FcmSendBody, buildFcmDataMessage, buildFcmMessage } from './fcm-message.ts';
import { type FcmProjectQuota, mapFcmResponse } from './fcm-response.ts';

/**
 * The FCM HTTP v1 client: OAuth access token (fcm-access-token.ts), HTTP/2 to `${url}/v1/projects/{project_id}/
 * messages:send`, one outcome per message (fcm-response.ts). v1 has no batch endpoint (docs/protocols.md 3.5), so throughput
 * comes from many concurrent streams on one reused session; the pool (shared with APNs, http2/session-pool.ts) keeps
 * to the server's stream limit, reconnects after GOAWAY or errors, and closes cleanly.
 */
export interface FcmClientOptions {
  /** CLARION_FCM_URL, e.g. https://fcm.googleapis.com. */
  url: string;
  /** The parsed service-account JSON, or CLARION_FCM_SERVICE_ACCOUNT_FILE in serviceAccountFile. */
  serviceAccount?: unknown;
  serviceAccountFile?: string;
  /**
   * Where the token request may go (fcm-token-uri.ts). Default: 'google' for `serviceAccount` (an account's upload),
   * 'any' for `serviceAccountFile` (the operator's own). A token_uri the policy refuses fails every push with
   * fcm:token_uri_refused, and no request is sent.
   */
  tokenUri?: TokenUriPolicy;
  clock: Clock;
  /** Extra CA to trust for both the FCM URL and token_uri (tests); otherwise the process's CAs. */
  ca?: string | Buffer;
  logger?: DeliveryLogger;
  /** Injectable fetch for the token exchange (tests); default global fetch. */
  fetch?: typeof fetch;
  /** Default 1: "reuse one session". Google's front ends allow 100 streams per connection. */
  maxSessions?: number;
  requestTimeoutMs?: number;
  pingIdleMs?: number;
}

export interface FcmClient {
  readonly projectId: string;
  /** A notification message built from `content`. */
  send(token: string, content: PushContent, receipt?: string): Promise<DeliveryOutcome>;
  /** A data-only message (string values), e.g. Android ongoing-progress updates. */
  sendData(token: string, data: Record<string, string>, options?: FcmDataOptions): Promise<DeliveryOutcome>;
  stats(): ReturnType<Http2Pool['stats']>;
  close(): Promise<void>;
}

export function createFcmClient(options: FcmClientOptions): FcmClient {
  const account: ParsedFcmServiceAccount =
    options.serviceAccount !== undefined
      ? parseFcmServiceAccount(options.serviceAccount)
      : readFcmServiceAccount(requireFile(options.serviceAccountFile));
  const log = options.logger ?? silentLogger;
  const refusal = tokenUriRefusal(
    account.tokenUri,
    options.tokenUri ?? (options.serviceAccount !== undefined ? 'google' : 'any'),
  );
  const refused: DeliveryOutcome | null =
    refusal === null
      ? null
      : {
          kind: 'fatal',
          reason: 'fcm:token_uri_refused',
          fix: `The service account's ${refusal}, so Clarion sends it no token request. Upload a key file from the Firebase console (Project settings → Service accounts → Generate new private key) as it was downloaded.`,
        };
  const accessToken: FcmAccessToken = createFcmAccessToken({
    account,
    clock: options.clock,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
  });
  const pool = createHttp2Pool({
    origin: options.url,
    clock: options.clock,
    name: 'fcm',
    logger: log,
    maxSessions: options.maxSessions ?? 1,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.pingIdleMs !== undefined ? { pingIdleMs: options.pingIdleMs } : {}),
  });
  const path = `/v1/projects/${encodeURIComponent(account.projectId)}/messages:send`;
  /**
   * Until when the project's quota is out (a `project_quota` answer, fcm-response.ts): every message of this client,
   * so every batch of its app in this process, waits that long without a request. Other processes learn it from their
   * own first 429.
   */
  let quotaPause = { until: 0, reason: '' };

  async function post(json: string): Promise<DeliveryOutcome> {
    if (refused) return logged(refused);
    const now = options.clock.now();
    if (now < quotaPause.until)
      return { kind: 'retry', reason: quotaPause.reason, retryAfterMs: quotaPause.until - now };
    // At most two attempts: the second only after a 401 made us drop the cached access token.
    for (let attempt = 1; ; attempt += 1) {
      let token = accessToken.fresh();
      if (token === null) {
        try {
          token = await accessToken.get();
        } catch (error) {
          return logged(tokenFailureOutcome(error));
        }
      }
      let outcome;
      try {
        const response = await pool.request(headersFor(token), json);
        outcome = mapFcmResponse({
          status: response.status,
          body: response.body,
          retryAfterMs: response.retryAfterMs,
          afterRefresh: attempt > 1,
        });
      } catch (error) {
        return logged(requestFailureOutcome(error, 'fcm', 'CLARION_FCM_URL'));
      }
      if (outcome.kind === 'project_quota') return pauseForQuota(outcome);
      if (outcome.kind !== 'refresh_token') return logged(outcome);
      log.info({ provider: 'fcm' }, 'FCM refused the access token; refreshing it and retrying once');
      accessToken.invalidate(token);
    }
  }

  /**
   * One headers object per access token, shared by every push until the token changes (node:http2 copies what it is
   * given): a new object and `Bearer …` string per push were ~0.5 KB of garbage each (bench/fanout-cpu.ts).
   */
  let requestHeaders = { token: '', headers: {} as Record<string, string> };
  function headersFor(token: string): Record<string, string> {
    if (requestHeaders.token !== token) {
      requestHeaders = {
        token,
        headers: {
          ':method': 'POST',
          ':path': path,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json; charset=utf-8',
        },
      };
    }
    return requestHeaders.headers;
  }

  function pauseForQuota(outcome: FcmProjectQuota): DeliveryOutcome {
    const until = options.clock.now() + outcome.retryAfterMs;
    if (until > quotaPause.until) {
      if (quotaPause.until <= options.clock.now())
        log.warn(
          { provider: 'fcm', projectId: account.projectId, retryAfterMs: outcome.retryAfterMs },
          "FCM answered 429 for the project's quota: holding back every message of the project",
        );
      quotaPause = { until, reason: outcome.reason };
    }
    return { kind: 'retry', reason: outcome.reason, retryAfterMs: quotaPause.until - options.clock.now() };
  }

  function logged(outcome: DeliveryOutcome): DeliveryOutcome {
    if (outcome.kind === 'fatal')
      log.warn({ provider: 'fcm', reason: outcome.reason, fix: outcome.fix }, 'FCM push failed: configuration problem');
    return outcome;
  }

  /**
   * The message serialised once per content object (once per send job, whose 500 tokens share it), with the token
   * spliced in per push: re-serialising the whole message per token was ~5 µs of the ~150 µs a push cost in
   * bench/fanout-cpu.ts. The TTL left is computed when the batch starts, seconds before its last push.
   */
  const prepared = new WeakMap<PushContent, (token: string) => string>();
  const preparedWithReceipt = new WeakMap<PushContent, (token: string, receipt: string) => string>();
  function serialize(token: string, content: PushContent, receipt: string | undefined): string {
    if (receipt !== undefined) {
      let withReceipt = preparedWithReceipt.get(content);
      if (!withReceipt) {
        withReceipt = spliceReceipt(buildFcmMessage('', content, { now: options.clock.now(), receipt: '' }));
        preparedWithReceipt.set(content, withReceipt);
      }
      return withReceipt(token, receipt);
    }
    let withToken = prepared.get(content);
    if (!withToken) {
      withToken = spliceToken(buildFcmMessage('', content, { now: options.clock.now() }));
      prepared.set(content, withToken);
    }
    return withToken(token);
  }

  return {
    projectId: account.projectId,
    send: (token, content, receipt) => post(serialize(token, content, receipt)),
    sendData: (token, data, dataOptions) =>
      post(JSON.stringify(buildFcmDataMessage(token, data, dataOptions, options.clock.now()))),
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}

/** `body` (built with an empty token) as a function of the token: JSON text before and after it, joined per push. */
function spliceToken(body: FcmSendBody): (token: string) => string {
  const json = JSON.stringify(body);
  // buildFcmMessage puts `token` first in `message`, so the empty token is at a fixed place.
  const head = '{"message":{"token":""';
  if (!json.startsWith(head)) return (token) => JSON.stringify({ ...body, message: { ...body.message, token } });
  const rest = json.slice(head.length);
  return (token) => `{"message":{"token":${JSON.stringify(token)}${rest}`;
}

/**
 * The same with the receipt spliced in too: buildFcmMessage makes it the first key of `data`, built empty here, and the
 * JSON text has that key once (a value's quotes are escaped, and `data` may not hold a key of that name).
 */
function spliceReceipt(body: FcmSendBody): (token: string, receipt: string) => string {
  const withToken = spliceToken(body);
  const json = withToken('');
  const slot = `"data":{"${RECEIPT_FIELD}":""`;
  const at = json.indexOf(slot);
  if (at === -1) throw new Error('an FCM message built with a receipt has none');
  const head = json.slice('{"message":{"token":""'.length, at + slot.length - 1);
  const tail = json.slice(at + slot.length - 1);
  return (token, receipt) => `{"message":{"token":${JSON.stringify(token)}${head}${receipt}${tail}`;
}

function tokenFailureOutcome(error: unknown): DeliveryOutcome {
  if (!(error instanceof FcmTokenError)) throw error;
  if (error.kind === 'transient') return { kind: 'retry', reason: 'fcm:token_exchange_failed', retryAfterMs: null };
  return {
    kind: 'fatal',
    reason: 'fcm:token_exchange_refused',
    fix: `${error.message}. Check that CLARION_FCM_SERVICE_ACCOUNT_FILE is a current key of an enabled service account (Firebase console → Project settings → Service accounts → Generate new private key) and that the system clock is right.`,
  };
}

function requireFile(file: string | undefined): string {
  if (file === undefined || file === '')
    throw new Error('FCM client: set CLARION_FCM_SERVICE_ACCOUNT_FILE (serviceAccountFile) or pass serviceAccount');
  return file;
}
