import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Clock } from '../../domain/clock.ts';
import type { VapidKeys } from './vapid-keys.ts';

/**
 * The VAPID `Authorization` header (RFC 8292 §2–3, docs/protocols.md 4.2): `vapid t=<JWT>, k=<public key>`, the JWT
 * ES256-signed with claims `aud` (the push service's origin), `exp` and `sub`. One token per push-service origin,
 * signed with the injected clock and reused: `exp` is 12 hours ahead (web-push's and pywebpush's choice; the RFC
 * allows at most 24), and a token is renewed once it is an hour old, so every token sent has 11 hours or more left,
 * ample for clock skew between us and the push service. A handful of origins serve all browsers (FCM, Mozilla,
 * Apple, Microsoft), so the cache stays small; it is bounded anyway, because endpoints are chosen by callers.
 */
export const VAPID_TOKEN_LIFETIME_SECONDS = 12 * 3600;
const RENEW_AFTER_MS = 3600_000;
const MAX_CACHED_ORIGINS = 256;

export interface VapidSigner {
  /** The Authorization header value for a push to an endpoint of `origin` (scheme://host[:port]). */
  authorization(origin: string): Promise<string>;
}

export function createVapidSigner(keys: VapidKeys, clock: Clock): VapidSigner {
  const privateKey = vapidSigningKey(keys);
  const cache = new Map<string, { header: Promise<string>; issuedAt: number }>();
  return {
    authorization(origin) {
      const now = clock.now();
      const cached = cache.get(origin);
      if (cached && now - cached.issuedAt < RENEW_AFTER_MS && now >= cached.issuedAt) return cached.header;
      if (cache.size >= MAX_CACHED_ORIGINS) cache.clear();
      const header = new SignJWT({ sub: keys.subject })
        .setProtectedHeader({ typ: 'JWT', alg: 'ES256' })
        .setAudience(origin)
        .setExpirationTime(Math.floor(now / 1000) + VAPID_TOKEN_LIFETIME_SECONDS)
        .sign(privateKey)
        .then((token) => `vapid t=${token}, k=${keys.publicKey}`);
      // A failed signing is not kept: the next push tries again.
      header.catch(() => cache.delete(origin));
      cache.set(origin, { header, issuedAt: now });
      return header;
    },
  };
}

/** The raw VAPID key pair as a KeyObject jose signs with (a JWK: d is the private scalar, x and y the point). */
function vapidSigningKey(keys: Pick<VapidKeys, 'publicKey' | 'privateKey'>): KeyObject {
  const point = Buffer.from(keys.publicKey, 'base64url');
  return createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: keys.privateKey,
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
}
