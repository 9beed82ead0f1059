import type { OutgoingHttpHeaders } from 'node:http2';
import type { Clock } from '../../domain/clock.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import { requestFailureOutcome } from '../http2/request.ts';
import {
  createHttp2Pool,
  silentLogger,
  type DeliveryLogger,
  type Http2Pool,
  type Http2Response,
} from '../http2/session-pool.ts';
import { localizedPush, type LiveActivityPush } from './live-activity-push.ts';
import { parseApnsSigningKey, readApnsSigningKey } from '../provider-credentials.ts';
import { buildApnsBroadcastHeaders, serializeApnsLiveActivityPayload } from './apns-live-activity-payload.ts';
import { createApnsProviderTokens, type ApnsProviderTokens } from '../apns/apns-provider-token.ts';
import { mapApnsResponse, parseApnsErrorBody } from '../apns/apns-response.ts';

/**
 * iOS 18 broadcast for Live Activities (docs/protocols.md 2.5): the channel management API (create, list, delete)
 * on its own host, and the broadcast send on the push host, with the app's token auth.
 *
 *   POST   <management>/1/apps/<bundle>/channels      {"message-storage-policy": 1, "push-type": "LiveActivity"} → 201 apns-channel-id
 *   GET    <management>/1/apps/<bundle>/all-channels  → 200 {"channels": [...]}
 *   DELETE <management>/1/apps/<bundle>/channels      apns-channel-id → 204
 *   POST   <push>/4/broadcasts/apps/<bundle>          apns-channel-id, apns-push-type: liveactivity → 200
 *
 * Every function takes the connection (one app, one environment) as a parameter: the caller decides which app's
 * credentials and which environment's hosts: the built-in app's CLARION_APNS_* settings (built-in-app.ts), or an
 * app's own credentials (provider-client-registry.ts).
 */
export interface ApnsBroadcastConnection {
  /** The app's bundle id. */
  readonly topic: string;
  readonly environment: ApnsEnvironment;
  /** A request with the provider token set: `headers` carry `:method` and `:path`. */
  request(host: 'push' | 'management', headers: OutgoingHttpHeaders, body: string): Promise<Http2Response>;
  close(): Promise<void>;
}

export type ApnsEnvironment = 'production' | 'sandbox';

/**
 * Apple's "Most Recent Message Stored" (1): a device offline when an update goes out gets the latest one when it comes
 * back, which is what an activity showing the current state wants. "No Message Stored" (0) would leave it stale.
 */
export const BROADCAST_MESSAGE_STORAGE_POLICY = 1;

/** Apple's limit per app and environment (docs/protocols.md 2.5); creating one more answers CannotCreateChannelConfig. */
export const APNS_CHANNELS_PER_APP = 10_000;

export interface ApnsBroadcastConnectionOptions {
  /** The push host (CLARION_APNS_URL) and the channel management host (CLARION_APNS_MANAGEMENT_URL or its sandbox one). */
  pushUrl: string;
  managementUrl: string;
  keyFile?: string;
  keyPem?: string;
  keyId: string;
  teamId: string;
  topic: string;
  environment: ApnsEnvironment;
  clock: Clock;
  /** The process's provider tokens, one per key (apns-provider-token.ts); absent: a token of this connection's own. */
  providerTokens?: ApnsProviderTokens;
  ca?: string | Buffer;
  logger?: DeliveryLogger;
}

/** The environment of an APNs push origin: Apple's sandbox host is the only sandbox one. */
export function apnsEnvironmentOf(pushUrl: string): ApnsEnvironment {
  return new URL(pushUrl).hostname === 'api.sandbox.push.apple.com' ? 'sandbox' : 'production';
}

export function createApnsBroadcastConnection(options: ApnsBroadcastConnectionOptions): ApnsBroadcastConnection {
  const key =
    options.keyPem !== undefined ? parseApnsSigningKey(options.keyPem) : readApnsSigningKey(options.keyFile ?? '');
  const tokens = (options.providerTokens ?? createApnsProviderTokens(options.clock)).forKey({
    key,
    keyId: options.keyId,
    teamId: options.teamId,
  });
  const logger = options.logger ?? silentLogger;
  const pool = (origin: string, name: string): Http2Pool =>
    createHttp2Pool({
      origin,
      clock: options.clock,
      name,
      logger,
      maxSessions: 1,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
    });
  const pools = {
    push: pool(options.pushUrl, 'apns-broadcast'),
    management: pool(options.managementUrl, 'apns-channels'),
  };
  return {
    topic: options.topic,
    environment: options.environment,
    async request(host, headers, body) {
      let jwt = tokens.fresh() ?? (await tokens.current());
      const response = await pools[host].request({ ...headers, authorization: `bearer ${jwt}` }, body);
      if (response.status !== 403 || parseApnsErrorBody(response.body).reason !== 'ExpiredProviderToken')
        return response;
      // Renewed once, as the push client does (apns-client.ts).
      const decision = await tokens.renewAfterExpired(jwt);
      if (!decision.renewed) return response;
      jwt = decision.token;
      return pools[host].request({ ...headers, authorization: `bearer ${jwt}` }, body);
    },
    close: async () => {
      await Promise.all([pools.push.close(), pools.management.close()]);
    },
  };
}

export type CreateChannelResult =
  { ok: true; channelId: string } | { ok: false; outcome: DeliveryOutcome; limitReached: boolean };

/** Creates a Live Activity channel for the app; `limitReached` when the app already has 10,000. */
export async function createBroadcastChannel(connection: ApnsBroadcastConnection): Promise<CreateChannelResult> {
  const body = JSON.stringify({
    'message-storage-policy': BROADCAST_MESSAGE_STORAGE_POLICY,
    'push-type': 'LiveActivity',
  });
  const answer = await call(
    connection,
    'management',
    { ':method': 'POST', ':path': `/1/apps/${connection.topic}/channels` },
    body,
  );
  if (!('response' in answer)) return { ok: false, outcome: answer.outcome, limitReached: false };
  const channelId = header(answer.response, 'apns-channel-id');
  if (answer.response.status === 201 && channelId) return { ok: true, channelId };
  const outcome = outcomeOf(answer.response);
  return {
    ok: false,
    outcome,
    limitReached: parseApnsErrorBody(answer.response.body).reason === 'CannotCreateChannelConfig',
  };
}

/** The ids of every channel the app has in this environment. */
export async function listBroadcastChannels(
  connection: ApnsBroadcastConnection,
): Promise<{ ok: true; channelIds: string[] } | { ok: false; outcome: DeliveryOutcome }> {
  const answer = await call(
    connection,
    'management',
    { ':method': 'GET', ':path': `/1/apps/${connection.topic}/all-channels` },
    '',
  );
  if (!('response' in answer)) return { ok: false, outcome: answer.outcome };
  if (answer.response.status !== 200) return { ok: false, outcome: outcomeOf(answer.response) };
  try {
    const parsed = JSON.parse(answer.response.body) as { channels?: unknown };
    const ids = Array.isArray(parsed.channels)
      ? parsed.channels.filter((id): id is string => typeof id === 'string')
      : [];
    return { ok: true, channelIds: ids };
  } catch {
    return { ok: false, outcome: { kind: 'rejected', reason: 'apns:BadListAnswer' } };
  }
}

/**
 * Deletes a channel. `gone` also covers a channel APNs no longer knows (ChannelNotRegistered; one implementation saw
 * 404 for it, docs/protocols.md 2.5): either way it no longer counts against the limit.
 */
export async function deleteBroadcastChannel(
  connection: ApnsBroadcastConnection,
  channelId: string,
): Promise<{ ok: true } | { ok: false; outcome: DeliveryOutcome }> {
  const answer = await call(
    connection,
    'management',
    { ':method': 'DELETE', ':path': `/1/apps/${connection.topic}/channels`, 'apns-channel-id': channelId },
    '',
  );
  if (!('response' in answer)) return { ok: false, outcome: answer.outcome };
  const { status } = answer.response;
  if (status === 204 || status === 200 || status === 404) return { ok: true };
  const outcome = outcomeOf(answer.response);
  return outcome.kind === 'token_dead' ? { ok: true } : { ok: false, outcome };
}

/**
 * One update or end to every activity subscribed to the channel: ONE request, whatever the audience, so its alert is
 * in the alert's own text (one payload cannot pick a language per device).
 */
export async function sendBroadcast(
  connection: ApnsBroadcastConnection,
  channelId: string,
  push: LiveActivityPush,
): Promise<DeliveryOutcome> {
  const headers = {
    ':method': 'POST',
    ':path': `/4/broadcasts/apps/${connection.topic}`,
    ...buildApnsBroadcastHeaders(push, connection.topic, channelId),
  };
  const answer = await call(connection, 'push', headers, serializeApnsLiveActivityPayload(localizedPush(push, null)));
  if (!('response' in answer)) return answer.outcome;
  return answer.response.status === 200 ? { kind: 'delivered' } : outcomeOf(answer.response);
}

async function call(
  connection: ApnsBroadcastConnection,
  host: 'push' | 'management',
  headers: OutgoingHttpHeaders,
  body: string,
): Promise<{ response: Http2Response } | { outcome: DeliveryOutcome }> {
  try {
    return { response: await connection.request(host, headers, body) };
  } catch (error) {
    return {
      outcome: requestFailureOutcome(
        error,
        'apns',
        host === 'push' ? 'CLARION_APNS_URL' : 'CLARION_APNS_MANAGEMENT_URL',
      ),
    };
  }
}

function outcomeOf(response: Http2Response): DeliveryOutcome {
  const { reason, timestamp } = parseApnsErrorBody(response.body);
  const outcome = mapApnsResponse({ status: response.status, reason, retryAfterMs: response.retryAfterMs, timestamp });
  // A second ExpiredProviderToken after the renewal: the clock is off, as apns-client.ts reports it.
  return outcome.kind === 'renew_token'
    ? {
        kind: 'fatal',
        reason: outcome.reason,
        fix: 'APNs keeps calling the provider token expired: synchronise the system clock (NTP).',
      }
    : outcome;
}

function header(response: Http2Response, name: string): string | null {
  const value = response.headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}
