import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import http2 from 'node:http2';
import type { Http2ServerResponse } from 'node:http2';
import type { Clock } from '../../../src/domain/clock.ts';
import { type FcmServiceAccount, createFcmServiceAccount } from '../fake-credentials.ts';
import {
  type AnyRequest,
  type ListenOptions,
  clientGone,
  connectionNumbering,
  listenSecureHttp2,
  readBody,
} from '../fake-http2-server.ts';
import { FakeRecord } from '../fake-record.ts';
import { FcmBehaviour, type FcmLatencyContext, type FcmOutcome, answerFor } from './fcm-behaviour.ts';
import {
  type GoogleErrorAnswer,
  googleError,
  notFound,
  permissionDenied,
  projectQuotaExceeded,
  unauthenticated,
} from './fcm-errors.ts';
import { FakeFcmProjectQuota } from './fcm-project-quota.ts';
import { FakeFcmDevices } from './fcm-devices.ts';
import { checkSendBody } from './fcm-message-rules.ts';
import { AccessTokenStore, type TokenExchange, exchangeAssertion, readAssertionClaims } from './fcm-oauth.ts';
import type { FcmSendRecord, FcmTokenRequestRecord } from './fcm-record.ts';

/**
 * A fake FCM HTTP v1 API plus Google's OAuth token endpoint (docs/protocols.md 3.1–3.5, checklist 6.2). HTTP/2 over TLS,
 * with HTTP/1.1 allowed because the token endpoint is usually called with fetch(), which speaks HTTP/1.1.
 */
export interface FakeFcmOptions extends ListenOptions {
  /** Service accounts whose assertions are valid. None: every token request gets invalid_grant ("wrong credentials"). */
  serviceAccounts?: FcmServiceAccount[];
  /** `expires_in` of issued access tokens. Default 3600 (docs/protocols.md 6.2); shorten it to watch a client renew. */
  accessTokenLifetimeSeconds?: number;
  /** Time source for assertion and access-token expiry and the record. Default: system clock. */
  clock?: Clock;
  /** Default true. false: `requests` stays empty (listeners still see each one), for long benchmark runs. */
  keepRequests?: boolean;
  /** Messages per minute per project before 429 (fcm-project-quota.ts). Default FCM's 600,000. */
  messagesPerMinutePerProject?: number;
}

export interface FakeFcm {
  readonly url: string;
  readonly port: number;
  /** `${url}/token`: what a service account's token_uri must be for this fake. */
  readonly tokenUri: string;
  readonly requests: readonly FcmSendRecord[];
  /** The Android devices behind the registration tokens: what each app received, held or lost (fcm-devices.ts). */
  readonly devices: FakeFcmDevices;
  readonly tokenRequests: readonly FcmTokenRequestRecord[];
  waitForRequests(count: number, timeoutMs?: number): Promise<FcmSendRecord[]>;
  waitForRequest(predicate: (request: FcmSendRecord) => boolean, timeoutMs?: number): Promise<FcmSendRecord>;
  waitForTokenRequests(count: number, timeoutMs?: number): Promise<FcmTokenRequestRecord[]>;
  /** Calls `listener` after each send is recorded; returns the unsubscribe function. */
  onRequest(listener: (request: FcmSendRecord) => void): () => void;
  /** Calls `listener` after each token request is recorded; returns the unsubscribe function. */
  onTokenRequest(listener: (request: FcmTokenRequestRecord) => void): () => void;
  /** Makes a service account whose token_uri points at this fake, and accepts it. */
  createServiceAccount(projectId: string, options?: { clientEmail?: string }): FcmServiceAccount;
  addServiceAccount(account: FcmServiceAccount): void;
  removeServiceAccount(clientEmail: string): void;
  /** Every access token issued so far becomes invalid (401), as if revoked. */
  revokeAccessTokens(): void;
  setTokenOutcome(token: string, outcome: FcmOutcome | null): void;
  failNext(count: number, outcome: FcmOutcome): void;
  setLatency(latency: number | ((request: FcmLatencyContext) => number)): void;
  /** Changes the per-project quota of messages per minute (fcm-project-quota.ts). */
  setMessagesPerMinutePerProject(perMinute: number): void;
  /** Sends GOAWAY on every open HTTP/2 connection, then closes each once its streams finish. */
  goAway(options?: { errorCode?: number }): number;
  /** Forgets recorded requests, configured behaviour and the devices' state; accounts, issued tokens and connections stay. */
  reset(): void;
  close(): Promise<void>;
}

type AnyResponse = Http2ServerResponse | ServerResponse;

const SEND_PATH = /^\/v1\/projects\/([^/]+)\/messages:send$/;
const RECORD_BODY_BYTES = 64 * 1024;

export async function startFakeFcm(options: FakeFcmOptions = {}): Promise<FakeFcm> {
  const clock = options.clock ?? { now: () => Date.now() };
  const lifetimeSeconds = options.accessTokenLifetimeSeconds ?? 3600;
  const accounts = new Map<string, FcmServiceAccount>();
  for (const account of options.serviceAccounts ?? []) accounts.set(account.json.client_email, account);
  const accessTokens = new AccessTokenStore();
  const behaviour = new FcmBehaviour();
  const requests = new FakeRecord<FcmSendRecord>(options.keepRequests ?? true);
  const tokenRequests = new FakeRecord<FcmTokenRequestRecord>();
  const connectionOf = connectionNumbering();
  const devices = new FakeFcmDevices(() => clock.now());
  const quota = new FakeFcmProjectQuota(options.messagesPerMinutePerProject);
  let messageCount = 0;

  const listener = await listenSecureHttp2({ ...options, allowHTTP1: true }, (server) => {
    server.on('request', (request: AnyRequest, response: AnyResponse) => {
      route(request, response).catch(() => {
        if (!response.headersSent && !clientGone(request))
          respond(response, googleError(500, 'INTERNAL', 'Internal error encountered.'));
      });
    });
  });
  const port = listener.port;
  // The certificate covers all three loopback names, so a token_uri may use any of them (aud must match it).
  const audiences = [
    `${listener.url}/token`,
    ...['127.0.0.1', 'localhost', '[::1]'].map((host) => `https://${host}:${port}/token`),
  ];

  async function route(request: AnyRequest, response: AnyResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (path === '/token') return tokenEndpoint(request, response);
    const send = SEND_PATH.exec(path);
    if (send?.[1]) return sendEndpoint(request, response, decodeURIComponent(send[1]));
    await readBody(request, 0);
    respond(response, notFound(path));
  }

  async function tokenEndpoint(request: AnyRequest, response: AnyResponse): Promise<void> {
    const { body } = await readBody(request, RECORD_BODY_BYTES);
    const isForm = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const form = new URLSearchParams(isForm ? body.toString('utf8') : '');
    let exchange: TokenExchange;
    if (request.method !== 'POST')
      exchange = {
        ok: false,
        error: 'invalid_request',
        description: `Method ${request.method} not allowed; use POST`,
        claims: null,
      };
    else exchange = await exchangeAssertion(form, accounts, audiences, clock.now());

    let answer: GoogleErrorAnswer;
    let accessToken: string | null = null;
    if (exchange.ok) {
      const grant = accessTokens.issue(exchange.account, clock.now(), lifetimeSeconds);
      accessToken = grant.accessToken;
      const body = JSON.stringify({
        access_token: grant.accessToken,
        expires_in: lifetimeSeconds,
        token_type: 'Bearer',
      });
      answer = {
        httpStatus: 200,
        body,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
        },
      };
    } else {
      // RFC 6749 §5.2: 400 with {"error","error_description"}; Google uses 400 for invalid_grant too.
      answer = {
        httpStatus: 400,
        body: JSON.stringify({ error: exchange.error, error_description: exchange.description }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      };
    }
    const assertion = form.get('assertion');
    const delayMs = behaviour.latencyFor({
      endpoint: 'token',
      projectId: exchange.ok ? exchange.account.json.project_id : null,
      token: null,
    });
    if (delayMs > 0) await listener.delay(delayMs);
    const answered = !clientGone(request);
    tokenRequests.add({
      at: clock.now(),
      connectionId: connectionOf(request),
      httpVersion: request.httpVersion,
      method: request.method ?? '',
      path: request.url ?? '',
      headers: { ...request.headers },
      grantType: form.get('grant_type'),
      claims: exchange.claims ?? (assertion ? readAssertionClaims(assertion) : null),
      status: answer.httpStatus,
      error: exchange.ok ? null : exchange.error,
      accessToken,
      answered,
    });
    if (answered) respond(response, answer);
  }

  async function sendEndpoint(request: AnyRequest, response: AnyResponse, projectId: string): Promise<void> {
    const { body, size } = await readBody(request, RECORD_BODY_BYTES);
    const text = body.toString('utf8');
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(String(request.headers.authorization ?? ''))?.[1] ?? null;
    const grant = bearer === null ? null : accessTokens.lookup(bearer, clock.now());
    const parsed = request.method === 'POST' && size <= RECORD_BODY_BYTES ? checkSendBody(text) : null;
    const draft: Omit<FcmSendRecord, 'at' | 'status' | 'errorCode' | 'name' | 'answered'> = {
      connectionId: connectionOf(request),
      httpVersion: request.httpVersion,
      method: request.method ?? '',
      path: request.url ?? '',
      headers: { ...request.headers },
      projectId,
      accessToken: bearer,
      clientEmail: typeof grant === 'object' && grant !== null ? grant.clientEmail : null,
      body: text,
      message: messageOf(text),
      validateOnly: parsed?.ok ? parsed.value.validateOnly : false,
      target: parsed?.ok ? parsed.value.target : null,
      injected: false,
    };

    // Order: method, credentials, project, body; then injected failures and per-token outcomes (fake-behaviour.ts).
    let answer: GoogleErrorAnswer | null = null;
    if (request.method !== 'POST') answer = googleError(404, 'NOT_FOUND', 'Method not found.');
    else if (grant === null) answer = unauthenticated('CREDENTIALS_MISSING');
    else if (grant === 'unknown') answer = unauthenticated('ACCESS_TOKEN_TYPE_UNSUPPORTED');
    else if (grant === 'expired') answer = unauthenticated('ACCESS_TOKEN_EXPIRED');
    else if (grant.projectId !== projectId) answer = permissionDenied(projectId);
    else if (quota.exhausted(projectId, clock.now())) answer = projectQuotaExceeded(projectId, quota.perMinute);
    else if (size > RECORD_BODY_BYTES)
      answer = googleError(413, 'INVALID_ARGUMENT', 'Request payload size exceeds the limit.');
    else if (parsed && !parsed.ok) answer = parsed.error;
    else if (parsed?.ok) {
      const target = parsed.value.target;
      const injected =
        behaviour.takeInjectedFailure() ?? (target.kind === 'token' ? behaviour.tokenOutcome(target.value) : undefined);
      if (injected) {
        draft.injected = true;
        answer = answerFor(injected);
      }
    }

    let name: string | null = null;
    if (answer === null) {
      // validate_only answers a fixed id, as FCM does for dry runs; a real send gets "0:<µs>%<16 hex>".
      const id = draft.validateOnly
        ? 'fake_message_id'
        : `0:${clock.now() * 1000 + (messageCount++ % 1000)}%${randomBytes(8).toString('hex')}`;
      name = `projects/${projectId}/messages/${id}`;
      answer = {
        httpStatus: 200,
        body: JSON.stringify({ name }),
        headers: { 'content-type': 'application/json; charset=UTF-8' },
      };
      if (!draft.validateOnly && draft.target?.kind === 'token' && parsed?.ok)
        devices.accept(draft.target.value, name, parsed.value.message);
    }
    // The quota counts every message a project's credentials sent, 4xx answers too, except 429 (fcm-project-quota.ts).
    if (grant !== null && typeof grant === 'object' && grant.projectId === projectId && answer.httpStatus !== 429)
      quota.count(projectId, clock.now());
    const delayMs = behaviour.latencyFor({
      endpoint: 'send',
      projectId,
      token: draft.target?.kind === 'token' ? draft.target.value : null,
    });
    if (delayMs > 0) await listener.delay(delayMs);
    const answered = !clientGone(request);
    requests.add({
      ...draft,
      at: clock.now(),
      status: answer.httpStatus,
      errorCode: answer.httpStatus === 200 ? null : errorCodeOf(answer.body),
      name,
      answered,
    });
    if (answered) respond(response, answer);
  }

  return {
    url: listener.url,
    port,
    tokenUri: `${listener.url}/token`,
    requests: requests.entries,
    devices,
    tokenRequests: tokenRequests.entries,
    waitForRequests: (count, timeoutMs) => requests.waitForCount(count, timeoutMs),
    waitForRequest: (predicate, timeoutMs) => requests.waitForMatch(predicate, timeoutMs),
    waitForTokenRequests: (count, timeoutMs) => tokenRequests.waitForCount(count, timeoutMs),
    onRequest: (listener) => requests.subscribe(listener),
    onTokenRequest: (listener) => tokenRequests.subscribe(listener),
    createServiceAccount: (projectId, accountOptions = {}) => {
      const account = createFcmServiceAccount({ projectId, tokenUri: `${listener.url}/token`, ...accountOptions });
      accounts.set(account.json.client_email, account);
      return account;
    },
    addServiceAccount: (account) => accounts.set(account.json.client_email, account),
    removeServiceAccount: (clientEmail) => accounts.delete(clientEmail),
    revokeAccessTokens: () => accessTokens.revokeAll(),
    setTokenOutcome: (token, outcome) => behaviour.setTokenOutcome(token, outcome),
    failNext: (count, outcome) => behaviour.failNext(count, outcome),
    setLatency: (latency) => behaviour.setLatency(latency),
    setMessagesPerMinutePerProject: (perMinute) => {
      quota.perMinute = perMinute;
    },
    goAway: ({ errorCode = http2.constants.NGHTTP2_NO_ERROR } = {}) => {
      const sessions = listener.openSessions();
      for (const session of sessions) {
        session.goaway(errorCode);
        session.close();
      }
      return sessions.length;
    },
    reset: () => {
      behaviour.reset();
      devices.reset();
      quota.reset();
      requests.clear();
      tokenRequests.clear();
    },
    close: async () => {
      requests.abortWaits('the fake FCM server was closed');
      tokenRequests.abortWaits('the fake FCM server was closed');
      await listener.close();
    },
  };
}

function respond(response: AnyResponse, answer: GoogleErrorAnswer): void {
  response.writeHead(answer.httpStatus, {
    ...answer.headers,
    'content-length': String(Buffer.byteLength(answer.body)),
  });
  response.end(answer.body);
}

function messageOf(text: string): unknown {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && 'message' in body ? body.message : null;
  } catch {
    return null;
  }
}

/** The FcmError errorCode of an error body, else its error.status. */
function errorCodeOf(body: string): string | null {
  try {
    const error = (JSON.parse(body) as { error?: { status?: string; details?: Array<{ errorCode?: string }> } }).error;
    return error?.details?.find((detail) => detail.errorCode)?.errorCode ?? error?.status ?? null;
  } catch {
    return null;
  }
}
