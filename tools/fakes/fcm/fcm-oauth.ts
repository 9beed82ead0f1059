import { randomBytes } from 'node:crypto';
import { type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { FcmServiceAccount } from '../fake-credentials.ts';

/**
 * The OAuth 2.0 token endpoint of Google's service-account flow (docs/protocols.md 3.1, checklist 6.2): a form POST with
 * grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer and an RS256 `assertion` signed with the service account's
 * key; answers {access_token, expires_in, token_type: "Bearer"} or an RFC 6749 §5.2 error body with status 400.
 */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Either scope lets a token send FCM messages (docs/protocols.md 3.1; fb-admin-node's scope list). */
const FCM_SCOPES = [
  'https://www.googleapis.com/auth/firebase.messaging',
  'https://www.googleapis.com/auth/cloud-platform',
];
/** exp − iat may be at most one hour (docs/protocols.md 3.1). */
const MAX_ASSERTION_LIFETIME_SECONDS = 3600;
/** How far ahead of the fake's clock a client's iat may be; Google tolerates small skew [unconfirmed amount]. */
const CLOCK_SKEW_SECONDS = 300;

export interface AssertionClaims {
  kid: string | null;
  iss: string | null;
  aud: string | string[] | null;
  scope: string | null;
  iat: number | null;
  exp: number | null;
}

export type TokenExchange =
  | { ok: true; account: FcmServiceAccount; claims: AssertionClaims }
  | {
      ok: false;
      error: 'invalid_request' | 'unsupported_grant_type' | 'invalid_grant' | 'invalid_scope';
      description: string;
      claims: AssertionClaims | null;
    };

/** Google's descriptions [commonly seen in real responses; not from a primary source]. */
const SHORT_LIVED =
  'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';

export async function exchangeAssertion(
  form: URLSearchParams,
  accounts: ReadonlyMap<string, FcmServiceAccount>,
  acceptedAudiences: readonly string[],
  nowMs: number,
): Promise<TokenExchange> {
  const grantType = form.get('grant_type');
  if (grantType === null)
    return { ok: false, error: 'invalid_request', description: 'Missing required parameter: grant_type', claims: null };
  if (grantType !== JWT_BEARER_GRANT)
    return {
      ok: false,
      error: 'unsupported_grant_type',
      description: `Invalid grant_type: ${grantType}`,
      claims: null,
    };
  const assertion = form.get('assertion');
  if (!assertion)
    return { ok: false, error: 'invalid_request', description: 'Missing required parameter: assertion', claims: null };

  const claims = readAssertionClaims(assertion);
  const grant = (description: string) => ({ ok: false as const, error: 'invalid_grant' as const, description, claims });
  if (claims.iss === null) return grant('Invalid JWT: No issuer.');
  const account = accounts.get(claims.iss);
  if (!account) return grant('Invalid grant: account not found');
  if (claims.kid !== null && claims.kid !== account.json.private_key_id) return grant('Invalid JWT Signature.');

  const nowSeconds = Math.floor(nowMs / 1000);
  try {
    await jwtVerify(assertion, account.publicKey, {
      algorithms: ['RS256'],
      issuer: account.json.client_email,
      requiredClaims: ['iat', 'exp', 'aud'],
      currentDate: new Date(nowMs),
    });
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return grant(SHORT_LIVED);
    if (error instanceof joseErrors.JWTClaimValidationFailed) return grant(SHORT_LIVED);
    return grant('Invalid JWT Signature.');
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : claims.aud === null ? [] : [claims.aud];
  if (!audiences.some((aud) => acceptedAudiences.includes(aud)))
    return grant(`Invalid JWT: Failed audience check. The right audience is ${acceptedAudiences[0]}`);
  if (claims.iat === null || claims.exp === null) return grant(SHORT_LIVED);
  if (claims.exp <= claims.iat || claims.exp - claims.iat > MAX_ASSERTION_LIFETIME_SECONDS) return grant(SHORT_LIVED);
  if (claims.iat > nowSeconds + CLOCK_SKEW_SECONDS) return grant(SHORT_LIVED);
  const scopes = (claims.scope ?? '').split(' ').filter(Boolean);
  if (!scopes.some((scope) => FCM_SCOPES.includes(scope))) {
    return {
      ok: false,
      error: 'invalid_scope',
      description: 'Invalid OAuth scope or ID token audience provided.',
      claims,
    };
  }
  return { ok: true, account, claims };
}

export interface AccessTokenGrant {
  accessToken: string;
  clientEmail: string;
  projectId: string;
  expiresAt: number;
}

/** Access tokens the fake has issued. They expire on the fake's clock, so tests can see a client renew. */
export class AccessTokenStore {
  private readonly grants = new Map<string, AccessTokenGrant>();

  issue(account: FcmServiceAccount, nowMs: number, lifetimeSeconds: number): AccessTokenGrant {
    // Google access tokens start with "ya29."; the rest is opaque.
    const grant = {
      accessToken: `ya29.fake-${randomBytes(32).toString('base64url')}`,
      clientEmail: account.json.client_email,
      projectId: account.json.project_id,
      expiresAt: nowMs + lifetimeSeconds * 1000,
    };
    this.grants.set(grant.accessToken, grant);
    return grant;
  }

  /** 'unknown' for a token never issued (or revoked), 'expired' past its lifetime. */
  lookup(accessToken: string, nowMs: number): AccessTokenGrant | 'unknown' | 'expired' {
    const grant = this.grants.get(accessToken);
    if (!grant) return 'unknown';
    return grant.expiresAt <= nowMs ? 'expired' : grant;
  }

  /** Invalidates every issued token (as if revoked), forcing clients back to the token endpoint. */
  revokeAll(): void {
    this.grants.clear();
  }
}

export function readAssertionClaims(assertion: string): AssertionClaims {
  const [headerPart, payloadPart] = assertion.split('.');
  const header = decodePart(headerPart);
  const payload = decodePart(payloadPart) as JWTPayload & { scope?: unknown };
  return {
    kid: typeof header.kid === 'string' ? header.kid : null,
    iss: typeof payload.iss === 'string' ? payload.iss : null,
    aud: typeof payload.aud === 'string' || Array.isArray(payload.aud) ? payload.aud : null,
    scope: typeof payload.scope === 'string' ? payload.scope : null,
    iat: typeof payload.iat === 'number' ? payload.iat : null,
    exp: typeof payload.exp === 'number' ? payload.exp : null,
  };
}

function decodePart(part: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
