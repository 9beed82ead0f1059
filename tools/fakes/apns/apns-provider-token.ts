import { type JsonWebKey, KeyObject, createPublicKey } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { ApnsReason } from './apns-reasons.ts';

/**
 * Provider authentication token checks (docs/protocols.md 1.2 and the 6.1 checklist): an ES256 JWT with header `kid` and
 * claims `iss` (team id) and `iat`, sent as `authorization: bearer <jwt>`, verified against the keys the fake knows.
 */
export type ApnsEnvironment = 'sandbox' | 'production';

/** A key the fake accepts. An ApnsSigningKey from fake-credentials.ts fits as is. */
export interface FakeApnsKey {
  keyId: string;
  teamId: string;
  /** Public half: a KeyObject, an SPKI PEM, or a JWK. */
  publicKey: KeyObject | string | JsonWebKey;
  /** A topic-specific key: the bundle ids it may push to (Feb 2025 key scoping). Omitted: the team's topics. */
  topics?: string[];
  /**
   * A key limited to one environment, as every key created since February 2025 is ("Team-scoped keys are limited to
   * Sandbox or Production"; https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns);
   * a token from it on the other environment's host → 403 BadEnvironmentKeyIdInToken
   * (https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns).
   */
  environment?: ApnsEnvironment;
  /** The one related key whose tokens may share a connection with this key's (docs/protocols.md 1.2). */
  relatedKeyId?: string;
}

export interface ProviderTokenRules {
  /** `iat` older than this → 403 ExpiredProviderToken. Apple: one hour. */
  maxAgeSeconds: number;
  /** A newer token of a key sooner than this after its last → 429 TooManyProviderTokenUpdates. Apple: 20 min. */
  minRefreshSeconds: number;
  environment: ApnsEnvironment;
  /** Which spelling to answer with (docs/protocols.md 1.5 notes; open question 1). */
  environmentMismatchReason: 'BadEnvironmentKeyIdInToken' | 'BadEnvironmentKeyInToken';
}

export interface ProviderTokenClaims {
  kid: string | null;
  iss: string | null;
  iat: number | null;
}

/** What APNs remembers per connection: the team it is bound to, its first key, and the tokens it already verified. */
export interface ConnectionAuthState {
  teamId: string | null;
  firstKeyId: string | null;
  verified: Map<string, string>;
}

export function newConnectionAuthState(): ConnectionAuthState {
  return { teamId: null, firstKeyId: null, verified: new Map() };
}

/**
 * The current provider token of each key, whatever connection, host or client brought it: Apple's rule is about
 * refreshing "your token", "no more than once every 20 minutes" (429 TooManyProviderTokenUpdates otherwise;
 * https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns), so a
 * provider's clients that each sign their own token for one key run into it. Share one between the production and the
 * sandbox fake (startFakeApnsHosts) to hold both hosts to it.
 */
export class FakeApnsKeyTokens {
  private readonly current = new Map<string, { jwt: string; iat: number; acceptedAt: number }>();

  get(keyId: string): { jwt: string; iat: number; acceptedAt: number } | undefined {
    return this.current.get(keyId);
  }

  set(keyId: string, token: { jwt: string; iat: number; acceptedAt: number }): void {
    this.current.set(keyId, token);
  }
}

export type ProviderTokenResult =
  | { ok: true; key: FakeApnsKey; claims: ProviderTokenClaims }
  | { ok: false; reason: ApnsReason; claims: ProviderTokenClaims | null };

export async function checkProviderToken(
  authorization: string | undefined,
  keys: ReadonlyMap<string, FakeApnsKey>,
  connection: ConnectionAuthState,
  keyTokens: FakeApnsKeyTokens,
  rules: ProviderTokenRules,
  nowMs: number,
): Promise<ProviderTokenResult> {
  // Clients send a lower-case `bearer` scheme (docs/protocols.md 1.2); HTTP auth schemes are case-insensitive.
  const match = /^bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return { ok: false, reason: 'MissingProviderToken', claims: null };
  const jwt = match[1];
  const claims = readClaims(jwt);
  const invalid = { ok: false as const, reason: 'InvalidProviderToken' as const, claims };

  let header;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    return invalid;
  }
  const key = typeof header.kid === 'string' ? keys.get(header.kid) : undefined;
  // ES256 only: an unsigned token or another algorithm is InvalidProviderToken (docs/protocols.md 1.2).
  if (!key || header.alg !== 'ES256' || claims.iss === null || claims.iat === null) return invalid;

  if (connection.verified.get(key.keyId) !== jwt) {
    try {
      await compactVerify(jwt, toKeyObject(key.publicKey), { algorithms: ['ES256'] });
    } catch {
      return invalid;
    }
  }
  if (claims.iss !== key.teamId) return invalid;
  // One team per connection; a second key must be the first one's related key (docs/protocols.md 1.2, pushy's mock).
  if (connection.teamId !== null && connection.teamId !== key.teamId) return invalid;
  if (
    connection.firstKeyId !== null &&
    connection.firstKeyId !== key.keyId &&
    !areRelated(connection.firstKeyId, key, keys)
  ) {
    return { ok: false, reason: 'UnrelatedKeyIdInToken', claims };
  }
  if (key.environment && key.environment !== rules.environment)
    return { ok: false, reason: rules.environmentMismatchReason, claims };
  if ((claims.iat + rules.maxAgeSeconds) * 1000 < nowMs) return { ok: false, reason: 'ExpiredProviderToken', claims };

  // What counts as a token update: a different token for the same key with a later `iat`, on any connection. An older
  // token still in flight after a refresh is accepted and changes nothing, so a client's rotation with requests queued
  // is not punished.
  const known = keyTokens.get(key.keyId);
  if (known && known.jwt !== jwt && claims.iat > known.iat) {
    if (nowMs - known.acceptedAt < rules.minRefreshSeconds * 1000)
      return { ok: false, reason: 'TooManyProviderTokenUpdates', claims };
    keyTokens.set(key.keyId, { jwt, iat: claims.iat, acceptedAt: nowMs });
  } else if (!known) {
    keyTokens.set(key.keyId, { jwt, iat: claims.iat, acceptedAt: nowMs });
  }
  connection.verified.set(key.keyId, jwt);
  connection.teamId ??= key.teamId;
  connection.firstKeyId ??= key.keyId;
  return { ok: true, key, claims };
}

/** The claims as sent, read without verification, for the record and for error diagnostics. */
export function readClaims(jwt: string): ProviderTokenClaims {
  const [headerPart, payloadPart] = jwt.split('.');
  const parse = (part: string | undefined): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
      return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  const header = parse(headerPart);
  const payload = parse(payloadPart);
  return {
    kid: typeof header.kid === 'string' ? header.kid : null,
    iss: typeof payload.iss === 'string' ? payload.iss : null,
    iat: typeof payload.iat === 'number' && Number.isInteger(payload.iat) ? payload.iat : null,
  };
}

export function toKeyObject(key: KeyObject | string | JsonWebKey): KeyObject {
  if (typeof key === 'string') return createPublicKey(key);
  if (key instanceof KeyObject) return key;
  return createPublicKey({ key, format: 'jwk' });
}

function areRelated(firstKeyId: string, key: FakeApnsKey, keys: ReadonlyMap<string, FakeApnsKey>): boolean {
  return key.relatedKeyId === firstKeyId || keys.get(firstKeyId)?.relatedKeyId === key.keyId;
}
