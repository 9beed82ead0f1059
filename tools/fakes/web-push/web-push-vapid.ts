import { createPublicKey } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';

/**
 * The push service's check of a VAPID signature (RFC 8292, docs/protocols.md 4.2): `Authorization: vapid t=<JWT>,
 * k=<public key>`; the JWT is ES256, signed by `k`, its `aud` the push service's origin, its `exp` in the future and
 * at most 24 hours ahead, and its `sub` a mailto: or https: contact. Pure apart from the signature check.
 */
export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

export type VapidCheck =
  | { ok: true; publicKey: string; claims: VapidClaims }
  /** 401: no usable credentials; 403: credentials that fail (RFC 8292 §4.2 for restricted subscriptions). */
  | { ok: false; status: 401 | 403; reason: string; claims: Partial<VapidClaims> | null };

const MAX_EXP_AHEAD_SECONDS = 24 * 3600;

export async function checkVapid(
  authorization: string | undefined,
  expectedOrigin: string,
  nowMs: number,
): Promise<VapidCheck> {
  const parsed = /^vapid\s+(.+)$/i.exec(authorization ?? '');
  if (!parsed) return { ok: false, status: 401, reason: 'missing Authorization: vapid t=…, k=…', claims: null };
  const params = new Map<string, string>();
  for (const part of parsed[1]!.split(',')) {
    const [name, ...value] = part.trim().split('=');
    if (name) params.set(name.trim().toLowerCase(), value.join('=').trim());
  }
  const token = params.get('t');
  const publicKey = params.get('k');
  if (!token || !publicKey)
    return { ok: false, status: 401, reason: 'the vapid scheme needs both t= and k=', claims: null };
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4)
    return { ok: false, status: 403, reason: 'k is not a 65-byte uncompressed P-256 point', claims: null };

  let claims: Partial<VapidClaims>;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'ES256')
      return { ok: false, status: 403, reason: `alg must be ES256 (got ${String(header.alg)})`, claims: null };
    const key = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
    const { payload } = await compactVerify(token, key, { algorithms: ['ES256'] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as Partial<VapidClaims>;
  } catch {
    return { ok: false, status: 403, reason: 'the JWT is malformed or not signed by k', claims: null };
  }
  const now = Math.floor(nowMs / 1000);
  if (claims.aud !== expectedOrigin)
    return {
      ok: false,
      status: 403,
      reason: `aud must be the push service origin ${expectedOrigin} (got ${String(claims.aud)})`,
      claims,
    };
  if (typeof claims.exp !== 'number') return { ok: false, status: 403, reason: 'exp is missing', claims };
  if (claims.exp <= now) return { ok: false, status: 403, reason: 'the JWT has expired', claims };
  if (claims.exp > now + MAX_EXP_AHEAD_SECONDS)
    return { ok: false, status: 403, reason: 'exp is more than 24 hours ahead', claims };
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub))
    return { ok: false, status: 403, reason: 'sub must be a mailto: or https: contact', claims };
  return { ok: true, publicKey: point.toString('base64url'), claims: claims as VapidClaims };
}

/**
 * What Apple's push service adds to the `sub` check above: it answers `403 {"reason":"BadJwtToken"}` when "the JWT
 * subject claim isn't a URL or mailto:"
 * (https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers).
 * A URL holds no whitespace or angle brackets (RFC 3986 §2, https://www.rfc-editor.org/rfc/rfc3986#section-2), so
 * `mailto: <admin@example.com>` is refused although it starts with mailto:
 * (https://developer.apple.com/forums/thread/725473), and so is a contact on localhost, which nobody can reach.
 * Null when Apple takes the subject.
 */
export function appleSubjectProblem(sub: string): string | null {
  if (/[\s<>]/.test(sub)) return 'sub is not a URL: it holds whitespace or angle brackets';
  const host = sub.startsWith('mailto:') ? sub.slice(sub.lastIndexOf('@') + 1) : hostOf(sub);
  if (host === null || /^(localhost|.*\.localhost|127(\.\d+){3}|\[::1\])$/i.test(host))
    return `sub must name a reachable contact, not ${host ?? 'an unreadable URL'}`;
  return null;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}
