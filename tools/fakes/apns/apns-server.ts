import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import type { Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Clock } from '../../../src/domain/clock.ts';
import { FakeRecord } from '../fake-record.ts';
import { type ListenOptions, listenSecureHttp2, readBody } from '../fake-http2-server.ts';
import { type ApnsAnswer, ApnsBehaviour, type ApnsLatencyContext, type ApnsOutcome, answerFor } from './apns-behaviour.ts';
import {
  type ApnsEnvironment,
  type ConnectionAuthState,
  type FakeApnsKey,
  type ProviderTokenRules,
  checkProviderToken,
  newConnectionAuthState,
  readClaims,
  toKeyObject,
} from './apns-provider-token.ts';
import { FakeApnsDevices } from './apns-devices.ts';
import { FakeLiveActivities, type FakeLiveActivity } from './apns-live-activities.ts';
import type { ApnsReason } from './apns-reasons.ts';
import { type ApnsRequestRecord, type ApnsSessionRecord, headerSnapshot } from './apns-record.ts';
import { checkApnsHeaders, checkDeviceToken, checkNoDuplicateHeaders, checkPayload, checkRequestLine, checkTopic } from './apns-request-rules.ts';

/**
 * A fake APNs provider API (docs/protocols.md 1.1–1.6, checklist 6.1): HTTP/2 over TLS only, token (JWT) authentication,
 * the real header, size and path rules, the real error bodies, plus knobs for tests (behaviour, latency, GOAWAY).
 */
export interface FakeApnsOptions extends ListenOptions {
  /** Keys whose tokens are valid. None: every token gets 403 InvalidProviderToken ("wrong credentials"). */
  keys?: FakeApnsKey[];
  /** Bundle ids the team may push to (a key's own `topics` take precedence). Omitted: any. */
  topics?: string[];
  /** 'sandbox' (default) also answers `apns-unique-id` on success, like the real sandbox (docs/protocols.md 1.4). */
  environment?: ApnsEnvironment;
  /** Advertised once the connection has posted a valid token. Real APNs: 500 (docs/protocols.md 1.6). */
  maxConcurrentStreams?: number;
  /** Advertised until then. Real APNs: 1 (docs/protocols.md 1.2). Set equal to maxConcurrentStreams to disable. */
  unauthenticatedMaxConcurrentStreams?: number;
  /** Default 3600: Apple rejects an `iat` older than one hour. */
  providerTokenMaxAgeSeconds?: number;
  /** Default 1200: Apple allows a new token no more than once every 20 minutes (per connection, per key). */
  providerTokenMinRefreshSeconds?: number;
  environmentMismatchReason?: ProviderTokenRules['environmentMismatchReason'];
  /** Time source for JWT age, token-update spacing, 410 timestamps and the record. Default: system clock. */
  clock?: Clock;
  /** Default true. false: `requests` stays empty (listeners still see each one), for long benchmark runs. */
  keepRequests?: boolean;
  /**
   * Which environment issued which device token (apns-devices.ts): a token of the other environment answers 400
   * BadDeviceToken, as Apple's hosts do. Share one between a sandbox and a production fake (`startFakeApnsHosts`).
   * Default: a registry of its own that accepts every token.
   */
  devices?: FakeApnsDevices;
}

export interface FakeApns {
  readonly url: string;
  readonly port: number;
  readonly environment: ApnsEnvironment;
  /** The device tokens this host knows (shared with the other host when started by startFakeApnsHosts). */
  readonly devices: FakeApnsDevices;
  /** Every push request received, oldest first (live array). */
  readonly requests: readonly ApnsRequestRecord[];
  /** Every connection opened, oldest first (live array). */
  readonly sessions: readonly ApnsSessionRecord[];
  waitForRequests(count: number, timeoutMs?: number): Promise<ApnsRequestRecord[]>;
  waitForRequest(predicate: (request: ApnsRequestRecord) => boolean, timeoutMs?: number): Promise<ApnsRequestRecord>;
  /** Calls `listener` after each request is recorded; returns the unsubscribe function. */
  onRequest(listener: (request: ApnsRequestRecord) => void): () => void;
  addKey(key: FakeApnsKey): void;
  removeKey(keyId: string): void;
  setTokenOutcome(token: string, outcome: ApnsOutcome | null): void;
  unregisterToken(token: string, timestampMs?: number): void;
  setTokenTopic(token: string, bundleId: string | null): void;
  failNext(count: number, outcome: ApnsOutcome): void;
  setLatency(latency: number | ((request: ApnsLatencyContext) => number)): void;
  /** Sends GOAWAY with a JSON `reason` on every open connection, then closes each once its streams finish. */
  goAway(options?: { reason?: string; errorCode?: number }): number;
  /** The devices' Live Activities: started by push-to-start, updated and ended by push (apns-live-activities.ts). */
  readonly liveActivities: FakeLiveActivities;
  /** Forgets recorded requests, configured behaviour and Live Activities; keys, topics and open connections stay. */
  reset(): void;
  close(): Promise<void>;
}

/** Bodies are kept for the record up to this size; the limits themselves are 4096/5120 bytes. */
const RECORD_BODY_BYTES = 64 * 1024;

interface SessionState {
  record: ApnsSessionRecord;
  auth: ConnectionAuthState;
  active: number;
  lastStreamId: number;
  unlocked: boolean;
}

export async function startFakeApns(options: FakeApnsOptions = {}): Promise<FakeApns> {
  const clock = options.clock ?? { now: () => Date.now() };
  const environment = options.environment ?? 'sandbox';
  const rules: ProviderTokenRules = {
    maxAgeSeconds: options.providerTokenMaxAgeSeconds ?? 3600,
    minRefreshSeconds: options.providerTokenMinRefreshSeconds ?? 1200,
    environment,
    environmentMismatchReason: options.environmentMismatchReason ?? 'BadEnvironmentKeyIdInToken',
  };
  const maxStreams = options.maxConcurrentStreams ?? 500;
  const lockedStreams = Math.min(options.unauthenticatedMaxConcurrentStreams ?? 1, maxStreams);
  const keys = new Map<string, FakeApnsKey>();
  const addKey = (key: FakeApnsKey) => keys.set(key.keyId, { ...key, publicKey: toKeyObject(key.publicKey) });
  for (const key of options.keys ?? []) addKey(key);
  const behaviour = new ApnsBehaviour();
  const devices = options.devices ?? new FakeApnsDevices();
  const liveActivities = new FakeLiveActivities();
  const requests = new FakeRecord<ApnsRequestRecord>(options.keepRequests ?? true);
  const sessionRecords: ApnsSessionRecord[] = [];
  const states = new WeakMap<Http2Session, SessionState>();

  const listener = await listenSecureHttp2(
    { ...options, allowHTTP1: false, settings: { maxConcurrentStreams: lockedStreams, maxHeaderListSize: 8000 } },
    (server) => {
      server.on('session', (session) => {
        const record: ApnsSessionRecord = { id: sessionRecords.length + 1, openedAt: clock.now(), closedAt: null, teamId: null, maxActiveStreams: 0, requestCount: 0 };
        sessionRecords.push(record);
        states.set(session, { record, auth: newConnectionAuthState(), active: 0, lastStreamId: 0, unlocked: lockedStreams >= maxStreams });
        session.once('close', () => (record.closedAt = clock.now()));
      });
      // node:http2 passes the raw header list as a 4th argument (not in @types/node), needed for DuplicateHeaders.
      server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders?: string[]) => {
        handleStream(stream, headers, rawHeaders ?? []).catch(() => stream.destroy());
      });
    },
  );

  async function handleStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: readonly string[]): Promise<void> {
    const state = stream.session ? states.get(stream.session) : undefined;
    if (!state || !stream.session) return;
    const session = stream.session;
    state.active += 1;
    state.lastStreamId = Math.max(state.lastStreamId, stream.id ?? 0);
    state.record.maxActiveStreams = Math.max(state.record.maxActiveStreams, state.active);
    state.record.requestCount += 1;
    stream.once('close', () => (state.active -= 1));
    stream.on('error', () => {}); // the client may reset the stream; nothing to answer then

    const { body, size } = await readBody(stream, RECORD_BODY_BYTES);
    const draft = newDraft(state, stream, headers, body, size);
    const answer = await evaluate(draft, headers, rawHeaders, body, size, state, session);
    // A delivered Live Activity push reaches the device; a start that minted an update token is announced below.
    const started: FakeLiveActivity | null =
      answer.status === 200 && draft.pushType === 'liveactivity' && draft.token ? liveActivities.accept(draft.token, draft.payload) : null;

    const delayMs = behaviour.latencyFor({ token: draft.token, topic: draft.topic, headers: draft.headers });
    if (delayMs > 0) await listener.delay(delayMs);
    const answered = !stream.closed && !stream.destroyed;
    requests.add({ ...draft, at: clock.now(), status: answer.status, reason: answer.reason, answered });
    if (!answered) return;
    stream.respond({ ':status': answer.status, 'apns-id': draft.apnsId, ...answer.headers }, { endStream: answer.body === '' });
    if (answer.body !== '') stream.end(answer.body);
    if (started) liveActivities.announce(started);
  }

  /**
   * The checks in the order the fake applies them: framing, request line, provider token, headers, topic, device
   * token, payload; then injected failures and per-token outcomes (fake-behaviour.ts explains why last).
   */
  async function evaluate(
    draft: Draft,
    headers: IncomingHttpHeaders,
    rawHeaders: readonly string[],
    body: Buffer,
    size: number,
    state: SessionState,
    session: Http2Session,
  ): Promise<ApnsAnswer> {
    const now = clock.now();
    const fail = (reason: ApnsReason) => answerFor({ reason }, now);
    const duplicates = checkNoDuplicateHeaders(rawHeaders);
    if (!duplicates.ok) return fail(duplicates.reason);
    const line = checkRequestLine(headers[':method'], headers[':path']);
    if (!line.ok) return fail(line.reason);

    const auth = await checkProviderToken(single(headers.authorization), keys, state.auth, rules, now);
    if (!auth.ok) return fail(auth.reason);
    state.record.teamId = state.auth.teamId;
    if (!state.unlocked) {
      // The first valid token lifts the one-stream limit to the full one (docs/protocols.md 1.2, 1.6).
      state.unlocked = true;
      session.settings({ maxConcurrentStreams: maxStreams });
    }

    const parsed = checkApnsHeaders(headers);
    if (!parsed.ok) return fail(parsed.reason);
    Object.assign(draft, { pushType: parsed.value.pushType, priority: parsed.value.priority, collapseId: parsed.value.collapseId, expiration: parsed.value.expiration });
    const topic = checkTopic(single(headers['apns-topic']), parsed.value.pushType);
    if (!topic.ok) return fail(topic.reason);
    // A topic outside the key's (or team's) apps: pushy's mock answers InvalidProviderToken (docs/protocols.md 1.5 table).
    const allowed = auth.key.topics ?? options.topics;
    if (allowed && !allowed.includes(topic.value.bundleId)) return fail('InvalidProviderToken');

    const token = checkDeviceToken(line.value.token);
    if (!token.ok) return fail(token.reason);
    // A token issued by the other environment (a development build's token sent to production, or the reverse).
    if (!devices.knows(token.value, environment)) return fail('BadDeviceToken');
    const bundle = behaviour.tokenBundle(token.value);
    if (bundle !== undefined && bundle !== topic.value.bundleId) return fail('DeviceTokenNotForTopic');

    const payload = checkPayload(body, size, parsed.value.pushType);
    if (!payload.ok) return fail(payload.reason);

    const injected = behaviour.takeInjectedFailure() ?? behaviour.tokenOutcome(token.value);
    if (injected) {
      draft.injected = true;
      return answerFor(injected, now);
    }
    // An ended (or rotated-away) activity's update token is no longer valid for the topic (docs/protocols.md 2.3).
    if (liveActivities.isGone(token.value)) return fail('Unregistered');
    return { status: 200, reason: null, body: '', headers: environment === 'sandbox' ? { 'apns-unique-id': randomUUID() } : {} };
  }

  return {
    url: listener.url,
    port: listener.port,
    environment,
    devices,
    requests: requests.entries,
    sessions: sessionRecords,
    waitForRequests: (count, timeoutMs) => requests.waitForCount(count, timeoutMs),
    waitForRequest: (predicate, timeoutMs) => requests.waitForMatch(predicate, timeoutMs),
    onRequest: (listener) => requests.subscribe(listener),
    addKey,
    removeKey: (keyId) => keys.delete(keyId),
    setTokenOutcome: (token, outcome) => behaviour.setTokenOutcome(token, outcome),
    unregisterToken: (token, timestampMs) => behaviour.unregisterToken(token, timestampMs),
    setTokenTopic: (token, bundleId) => behaviour.setTokenTopic(token, bundleId),
    failNext: (count, outcome) => behaviour.failNext(count, outcome),
    setLatency: (latency) => behaviour.setLatency(latency),
    goAway: ({ reason = 'Shutdown', errorCode = http2.constants.NGHTTP2_NO_ERROR } = {}) => {
      const sessions = listener.openSessions();
      for (const session of sessions) {
        // docs/protocols.md 1.4: APNs may close a connection with GOAWAY carrying a JSON reason.
        session.goaway(errorCode, states.get(session)?.lastStreamId ?? 0, Buffer.from(JSON.stringify({ reason })));
        session.close();
      }
      return sessions.length;
    },
    liveActivities,
    reset: () => {
      behaviour.reset();
      liveActivities.reset();
      requests.clear();
    },
    close: async () => {
      requests.abortWaits('the fake APNs server was closed');
      await listener.close();
    },
  };
}

type Draft = Omit<ApnsRequestRecord, 'at' | 'status' | 'reason' | 'answered'>;

function newDraft(state: SessionState, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number): Draft {
  const path = headers[':path'] ?? '';
  const token = /^\/3\/device\/([^/?]+)/.exec(path)?.[1]?.toLowerCase() ?? null;
  const authorization = single(headers.authorization);
  const jwt = authorization ? readClaims(authorization.replace(/^bearer\s+/i, '')) : null;
  const apnsId = single(headers['apns-id']);
  const text = body.toString('utf8');
  let payload: unknown = null;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = null;
  }
  return {
    sessionId: state.record.id,
    streamId: stream.id ?? null,
    method: headers[':method'] ?? '',
    path,
    headers: headerSnapshot(headers),
    token,
    topic: single(headers['apns-topic']) ?? null,
    pushType: null,
    priority: null,
    collapseId: null,
    expiration: null,
    body: text,
    bodySize: size,
    payload,
    jwt,
    // Echo the caller's apns-id when it is a UUID, else generate one (docs/protocols.md 1.3, 1.4).
    apnsId: apnsId && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(apnsId) ? apnsId : randomUUID(),
    injected: false,
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
