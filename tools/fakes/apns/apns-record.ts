import type { IncomingHttpHeaders } from 'node:http2';
import type { ProviderTokenClaims } from './apns-provider-token.ts';
import type { ApnsDeviceHandling } from './apns-device-handling.ts';
import type { ApnsPushType } from './apns-request-rules.ts';

/** One push request as the fake APNs received and answered it, for tests to assert on. */
export interface ApnsRequestRecord {
  /** Clock time (ms) the request was answered. */
  at: number;
  /** Which HTTP/2 connection it came on (ApnsSessionRecord.id), to assert on connection reuse. */
  sessionId: number;
  streamId: number | null;
  method: string;
  path: string;
  /** A push to a device token, a broadcast on a channel, or a channel management request (docs/protocols.md 2.5). */
  kind: 'device' | 'broadcast' | 'channels';
  /** Broadcast and channel management: the `apns-channel-id` sent, or the one a create answered; else null. */
  channelId: string | null;
  /** Request headers as received, pseudo-headers included (duplicates joined by node:http2). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Device token from the path, lower-cased; null when the path has none. */
  token: string | null;
  topic: string | null;
  pushType: ApnsPushType | null;
  priority: number | null;
  collapseId: string | null;
  expiration: number | null;
  /** Raw body (first 64 KiB) and its parsed JSON when it parsed. */
  body: string;
  bodySize: number;
  payload: unknown;
  /**
   * A delivered alert or background push: what the device did with it (apns-device-handling.ts); null for anything
   * else (a refused push, a Live Activity, a broadcast).
   */
  handling: ApnsDeviceHandling | null;
  /** The provider token's claims as sent (read even when it was rejected); null when there was none. */
  jwt: ProviderTokenClaims | null;
  status: number;
  reason: string | null;
  /** The apns-id answered: the caller's or a generated UUID. */
  apnsId: string;
  /** True when the answer came from failNext or setTokenOutcome rather than from the protocol's rules. */
  injected: boolean;
  /** False when the client had gone (stream closed) before the answer could be sent. */
  answered: boolean;
}

/** One HTTP/2 connection to the fake. */
export interface ApnsSessionRecord {
  id: number;
  openedAt: number;
  closedAt: number | null;
  /** The team the connection got bound to by its first valid token (docs/protocols.md 1.2). */
  teamId: string | null;
  /** The highest number of streams seen open at once. */
  maxActiveStreams: number;
  requestCount: number;
}

export function headerSnapshot(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  return Object.fromEntries(Object.entries(headers));
}
