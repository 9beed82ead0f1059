import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import type { Http2SecureServer, Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Clock } from '../../../src/domain/clock.ts';
import { FakeRecord } from '../fake-record.ts';
import { type ListenOptions, listenSecureHttp2, readBody } from '../fake-http2-server.ts';
import {
  type ApnsAnswer,
  ApnsBehaviour,
  type ApnsLatencyContext,
  type ApnsOutcome,
  answerFor,
} from './apns-behaviour.ts';
import {
  type ApnsEnvironment,
  type ConnectionAuthState,
  type FakeApnsKey,
  FakeApnsKeyTokens,
  type ProviderTokenRules,
  checkProviderToken,
  newConnectionAuthState,
  readClaims,
  toKeyObject,
} from './apns-provider-token.ts';
import { FakeApnsDevices } from './apns-devices.ts';
import { FakeBroadcastChannels } from './apns-broadcast-channels.ts';
import {
  BROADCAST_MAX_PAYLOAD_BYTES,
  checkBroadcastLine,
  checkBroadcastPushType,
  checkChannelIdHeader,
  checkCreateChannelBody,
  checkManagementLine,
} from './apns-broadcast-rules.ts';
import { FakeLiveActivities, type FakeLiveActivity } from './apns-live-activities.ts';
import type { ApnsReason } from './apns-reasons.ts';
import { deviceHandling } from './apns-device-handling.ts';
import { type ApnsRequestRecord, type ApnsSessionRecord, headerSnapshot } from './apns-record.ts';
import {
  checkApnsHeaders,
  checkDeviceToken,
  checkNoDuplicateHeaders,
  checkPayload,
  checkRequestLine,
  checkTopic,
} from './apns-request-rules.ts';
import { checkWidgetPayload, FakeWidgetReloads } from './apns-widgets.ts';

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
  /** Default 1200: Apple allows a new token of a key no more than once every 20 minutes (apns-provider-token.ts). */
  providerTokenMinRefreshSeconds?: number;
  /**
   * The current token of each key (apns-provider-token.ts FakeApnsKeyTokens). Share one between a sandbox and a
   * production fake (`startFakeApnsHosts`) so the 20-minute rule spans both. Default: one of its own.
   */
  keyTokens?: FakeApnsKeyTokens;
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
  /**
   * Port of the channel management listener (Apple: its own host, port 2196 in production, 2195 in the sandbox;
   * docs/protocols.md 2.5). Default 0: any free port; see `managementUrl`.
   */
  managementPort?: number;
}

export interface FakeApns {
  readonly url: string;
  readonly port: number;
  readonly environment: ApnsEnvironment;
  /** The device tokens this host knows (shared with the other host when started by startFakeApnsHosts). */
  readonly devices: FakeApnsDevices;
  /** The current provider token of each key (shared with the other host when started by startFakeApnsHosts). */
  readonly keyTokens: FakeApnsKeyTokens;
  /** The channel management API (create, read, list, delete broadcast channels), on a listener of its own. */
  readonly managementUrl: string;
  /** The broadcast channels of this environment (apns-broadcast-channels.ts); `setLimit` to provoke the limit. */
  readonly channels: FakeBroadcastChannels;
  /** Every request received (pushes, broadcasts, channel management), oldest first (live array). */
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
  /** The devices' widget reloads: every `widgets` push accepted (apns-widgets.ts). */
  readonly widgetReloads: FakeWidgetReloads;
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
  const keyTokens = options.keyTokens ?? new FakeApnsKeyTokens();
  const liveActivities = new FakeLiveActivities(() => clock.now());
  const widgetReloads = new FakeWidgetReloads();
  const channels = new FakeBroadcastChannels();
  const requests = new FakeRecord<ApnsRequestRecord>(options.keepRequests ?? true);
  const sessionRecords: ApnsSessionRecord[] = [];
  const states = new WeakMap<Http2Session, SessionState>();

  const attach = (role: Role) => (server: Http2SecureServer) => {
    server.on('session', (session) => {
      const record: ApnsSessionRecord = {
        id: sessionRecords.length + 1,
        openedAt: clock.now(),
        closedAt: null,
        teamId: null,
        maxActiveStreams: 0,
        requestCount: 0,
      };
      sessionRecords.push(record);
      states.set(session, {
        record,
        auth: newConnectionAuthState(),
        active: 0,
        lastStreamId: 0,
        unlocked: lockedStreams >= maxStreams,
      });
      session.once('close', () => (record.closedAt = clock.now()));
    });
    // node:http2 passes the raw header list as a 4th argument (not in @types/node), needed for DuplicateHeaders.
    server.on(
      'stream',
      (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders?: string[]) => {
        handleStream(stream, headers, rawHeaders ?? [], role).catch(() => stream.destroy());
      },
    );
  };
  const listenOptions = {
    ...options,
    allowHTTP1: false,
    settings: { maxConcurrentStreams: lockedStreams, maxHeaderListSize: 8000 },
  };
  const listener = await listenSecureHttp2(listenOptions, attach('push'));
  const management = await listenSecureHttp2(
    { ...listenOptions, port: options.managementPort ?? 0 },
    attach('management'),
  );

  async function handleStream(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    rawHeaders: readonly string[],
    role: Role,
  ): Promise<void> {
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
    const draft = newDraft(state, stream, headers, body, size, role);
    const answer = await evaluate(draft, headers, rawHeaders, body, size, state, session, role);
    // A delivered Live Activity push reaches the device; a start that minted an update token is announced below.
    const started: FakeLiveActivity | null =
      answer.status === 200 && draft.kind === 'device' && draft.pushType === 'liveactivity' && draft.token
        ? liveActivities.accept(draft.token, draft.payload)
        : null;
    // A broadcast reaches every activity subscribed to the channel.
    if (answer.status === 200 && draft.kind === 'broadcast' && draft.channelId)
      liveActivities.broadcast(draft.channelId, draft.payload);
    // A delivered widgets push makes the device reload the app's widget timelines (apns-widgets.ts).
    if (answer.status === 200 && draft.kind === 'device' && draft.pushType === 'widgets' && draft.token && draft.topic)
      widgetReloads.accept({
        token: draft.token,
        bundleId: draft.topic.slice(0, -'.push-type.widgets'.length),
        at: clock.now(),
        priority: draft.priority,
        expiration: draft.expiration,
      });

    const delayMs = behaviour.latencyFor({ token: draft.token, topic: draft.topic, headers: draft.headers });
    if (delayMs > 0) await listener.delay(delayMs);
    const answered = !stream.closed && !stream.destroyed;
    const handling =
      answer.status === 200 && draft.kind === 'device' ? deviceHandling(draft.pushType, draft.payload) : null;
    requests.add({ ...draft, at: clock.now(), status: answer.status, reason: answer.reason, answered, handling });
    if (!answered) return;
    stream.respond(
      { ':status': answer.status, 'apns-id': draft.apnsId, ...answer.headers },
      { endStream: answer.body === '' },
    );
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
    role: Role,
  ): Promise<ApnsAnswer> {
    const now = clock.now();
    const fail = (reason: ApnsReason) => answerFor({ reason }, now);
    const duplicates = checkNoDuplicateHeaders(rawHeaders);
    if (!duplicates.ok) return fail(duplicates.reason);
    if (role === 'management') return evaluateManagement(draft, headers, body, state, session);
    const broadcastLine = checkBroadcastLine(headers[':method'], headers[':path']);
    if (broadcastLine) return evaluateBroadcast(draft, headers, broadcastLine, body, size, state, session);
    const line = checkRequestLine(headers[':method'], headers[':path']);
    if (!line.ok) return fail(line.reason);

    const auth = await authenticate(headers, state, session, now);
    if (!auth.ok) return fail(auth.reason);

    const parsed = checkApnsHeaders(headers);
    if (!parsed.ok) return fail(parsed.reason);
    Object.assign(draft, {
      pushType: parsed.value.pushType,
      priority: parsed.value.priority,
      collapseId: parsed.value.collapseId,
      expiration: parsed.value.expiration,
    });
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
    if (parsed.value.pushType === 'widgets') {
      const widget = checkWidgetPayload(payload.value);
      if (!widget.ok) return fail(widget.reason);
    }

    const injected = behaviour.takeInjectedFailure() ?? behaviour.tokenOutcome(token.value);
    if (injected) {
      draft.injected = true;
      return answerFor(injected, now);
    }
    // An ended (or rotated-away) activity's update token is no longer valid for the topic (docs/protocols.md 2.3).
    if (liveActivities.isGone(token.value)) return fail('Unregistered');
    return {
      status: 200,
      reason: null,
      body: '',
      headers: environment === 'sandbox' ? { 'apns-unique-id': randomUUID() } : {},
    };
  }

  /** The provider token (JWT) checks of every request, on both hosts (docs/protocols.md 1.2). */
  async function authenticate(headers: IncomingHttpHeaders, state: SessionState, session: Http2Session, now: number) {
    const auth = await checkProviderToken(single(headers.authorization), keys, state.auth, keyTokens, rules, now);
    if (!auth.ok) return auth;
    state.record.teamId = state.auth.teamId;
    if (!state.unlocked) {
      // The first valid token lifts the one-stream limit to the full one (docs/protocols.md 1.2, 1.6).
      state.unlocked = true;
      session.settings({ maxConcurrentStreams: maxStreams });
    }
    return auth;
  }

  /** An app outside the key's (or team's) apps: answered like a push to a foreign topic (InvalidProviderToken). */
  function mayUse(key: FakeApnsKey, bundleId: string): boolean {
    const allowed = key.topics ?? options.topics;
    return !allowed || allowed.includes(bundleId);
  }

  /** POST /4/broadcasts/apps/<bundle>: JWT, push type, topic (when sent), channel, payload; then injected failures. */
  async function evaluateBroadcast(
    draft: Draft,
    headers: IncomingHttpHeaders,
    line: ReturnType<typeof checkBroadcastLine> & object,
    body: Buffer,
    size: number,
    state: SessionState,
    session: Http2Session,
  ): Promise<ApnsAnswer> {
    const now = clock.now();
    const fail = (reason: ApnsReason) => answerFor({ reason }, now);
    if (!line.ok) return fail(line.reason);
    const { bundleId } = line.value;
    const auth = await authenticate(headers, state, session, now);
    if (!auth.ok) return fail(auth.reason);
    if (!mayUse(auth.key, bundleId)) return fail('InvalidProviderToken');
    const parsed = checkApnsHeaders(headers);
    if (!parsed.ok) return fail(parsed.reason);
    Object.assign(draft, {
      pushType: parsed.value.pushType,
      priority: parsed.value.priority,
      expiration: parsed.value.expiration,
    });
    const pushType = checkBroadcastPushType(single(headers['apns-push-type']));
    if (!pushType.ok) return fail(pushType.reason);
    // Whether APNs needs apns-topic on a broadcast is open (docs/protocols.md 7, q3): absent passes, a wrong one fails.
    const topicHeader = single(headers['apns-topic']);
    if (topicHeader !== undefined) {
      const topic = checkTopic(topicHeader, 'liveactivity');
      if (!topic.ok) return fail(topic.reason);
      if (topic.value.bundleId !== bundleId) return fail('TopicDisallowed');
    }
    const channelId = checkChannelIdHeader(single(headers['apns-channel-id']));
    if (!channelId.ok) return fail(channelId.reason);
    if (!channels.find(bundleId, channelId.value)) return fail('ChannelNotRegistered');
    const payload = checkPayload(body, size, 'liveactivity', BROADCAST_MAX_PAYLOAD_BYTES);
    if (!payload.ok) return fail(payload.reason);
    const injected = behaviour.takeInjectedFailure();
    if (injected) {
      draft.injected = true;
      return answerFor(injected, now);
    }
    return { status: 200, reason: null, body: '', headers: requestIdHeader(headers) };
  }

  /** The channel management API (docs/protocols.md 2.5): JWT, then create, read, list or delete. */
  async function evaluateManagement(
    draft: Draft,
    headers: IncomingHttpHeaders,
    body: Buffer,
    state: SessionState,
    session: Http2Session,
  ): Promise<ApnsAnswer> {
    const now = clock.now();
    const fail = (reason: ApnsReason) => answerFor({ reason }, now);
    const line = checkManagementLine(headers[':method'], headers[':path']);
    if (!line.ok) return fail(line.reason);
    const { operation, bundleId } = line.value;
    const auth = await authenticate(headers, state, session, now);
    if (!auth.ok) return fail(auth.reason);
    if (!mayUse(auth.key, bundleId)) return fail('InvalidProviderToken');
    const injected = behaviour.takeInjectedFailure();
    if (injected) {
      draft.injected = true;
      return answerFor(injected, now);
    }
    const json = (status: number, value: unknown): ApnsAnswer => ({
      status,
      reason: null,
      body: JSON.stringify(value),
      headers: { 'content-type': 'application/json', ...requestIdHeader(headers) },
    });
    if (operation === 'list') return json(200, { channels: channels.list(bundleId).map((channel) => channel.id) });
    if (operation === 'create') {
      const checked = checkCreateChannelBody(body);
      if (!checked.ok) return fail(checked.reason);
      const channel = channels.create(bundleId, checked.value.messageStoragePolicy, now);
      if (!channel) return fail('CannotCreateChannelConfig');
      draft.channelId = channel.id;
      return {
        status: 201,
        reason: null,
        body: '',
        headers: { 'apns-channel-id': channel.id, ...requestIdHeader(headers) },
      };
    }
    const channelId = checkChannelIdHeader(single(headers['apns-channel-id']));
    if (!channelId.ok) return fail(channelId.reason);
    const channel = channels.find(bundleId, channelId.value);
    if (!channel) return fail('ChannelNotRegistered');
    if (operation === 'read')
      return json(200, { 'message-storage-policy': channel.messageStoragePolicy, 'push-type': 'LiveActivity' });
    channels.delete(bundleId, channel.id);
    return { status: 204, reason: null, body: '', headers: requestIdHeader(headers) };
  }

  return {
    url: listener.url,
    port: listener.port,
    environment,
    devices,
    keyTokens,
    managementUrl: management.url,
    channels,
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
      const sessions = [...listener.openSessions(), ...management.openSessions()];
      for (const session of sessions) {
        // docs/protocols.md 1.4: APNs may close a connection with GOAWAY carrying a JSON reason.
        session.goaway(errorCode, states.get(session)?.lastStreamId ?? 0, Buffer.from(JSON.stringify({ reason })));
        session.close();
      }
      return sessions.length;
    },
    liveActivities,
    widgetReloads,
    reset: () => {
      behaviour.reset();
      liveActivities.reset();
      widgetReloads.reset();
      channels.reset();
      requests.clear();
    },
    close: async () => {
      requests.abortWaits('the fake APNs server was closed');
      await Promise.all([listener.close(), management.close()]);
    },
  };
}

type Draft = Omit<ApnsRequestRecord, 'at' | 'status' | 'reason' | 'answered' | 'handling'>;

/** Which listener a request came to: the push host (device pushes, broadcasts) or the channel management host. */
type Role = 'push' | 'management';

/** `apns-request-id` is echoed on broadcast and channel management answers (docs/protocols.md 1.3 header table). */
function requestIdHeader(headers: IncomingHttpHeaders): Record<string, string> {
  const requestId = single(headers['apns-request-id']);
  return { 'apns-request-id': requestId ?? randomUUID() };
}

function newDraft(
  state: SessionState,
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  body: Buffer,
  size: number,
  role: Role,
): Draft {
  const path = headers[':path'] ?? '';
  const kind: Draft['kind'] =
    role === 'management' ? 'channels' : path.startsWith('/4/broadcasts/') ? 'broadcast' : 'device';
  const token = kind === 'device' ? (/^\/3\/device\/([^/?]+)/.exec(path)?.[1]?.toLowerCase() ?? null) : null;
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
    kind,
    channelId: single(headers['apns-channel-id']) ?? null,
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
    apnsId:
      apnsId && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(apnsId) ? apnsId : randomUUID(),
    injected: false,
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
