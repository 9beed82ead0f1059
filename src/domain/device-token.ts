import { hash } from 'node:crypto';
import type { FieldProblem } from './schema-errors.ts';

export type Platform = 'ios' | 'android' | 'web';
export const platforms = ['ios', 'android', 'web'] as const satisfies readonly Platform[];

export interface WebPushSubscription {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

export interface NormalizedToken {
  /** What is stored and sent to: hex token, FCM token, or the Web Push subscription as JSON. */
  token: string;
  /**
   * Identity for idempotent registration: the 32-byte SHA-256 of the token (for web of the endpoint alone: keys may be
   * refreshed), stored as bytes in `subscribers.token_hash` (migration 0017). Compare with `Buffer.equals`/
   * `timingSafeEqual`, key maps with `tokenHashKey`: a Buffer in a template string is decoded as UTF-8, lossily.
   */
  tokenHash: Buffer;
}

/** APNs device tokens are hex; 32 bytes today, and Apple warns the length may grow, so allow up to 100 bytes. */
const APNS_TOKEN = /^[0-9a-fA-F]{64,200}$/;
/** FCM registration tokens are opaque; ~160 characters today, no white space. */
const FCM_TOKEN = /^[\x21-\x7e]{1,4096}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** Checks a token against its platform's shape (the schema only knows "string or subscription object"). */
export function normalizeToken(
  platform: Platform,
  token: unknown,
  field = 'token',
): { ok: true; value: NormalizedToken } | { ok: false; problems: FieldProblem[] } {
  const fail = (message: string, at = field) => ({ ok: false as const, problems: [{ field: at, message }] });
  switch (platform) {
    case 'ios':
      if (typeof token !== 'string' || !APNS_TOKEN.test(token))
        return fail('an iOS token is the APNs device token in hex (64 or more hex digits)');
      return { ok: true, value: identity(token.toLowerCase()) };
    case 'android':
      if (typeof token !== 'string' || !FCM_TOKEN.test(token))
        return fail('an Android token is the FCM registration token (a string without spaces)');
      return { ok: true, value: identity(token) };
    case 'web': {
      if (typeof token !== 'object' || token === null || Array.isArray(token)) {
        return fail('a web token is the PushSubscription object from the browser: {endpoint, keys: {p256dh, auth}}');
      }
      const subscription = token as Partial<WebPushSubscription>;
      let endpoint: URL | null = null;
      try {
        endpoint = typeof subscription.endpoint === 'string' ? new URL(subscription.endpoint) : null;
      } catch {
        endpoint = null;
      }
      if (!endpoint || endpoint.protocol !== 'https:')
        return fail('must be the https URL of the push service', `${field}.endpoint`);
      const p256dh = subscription.keys?.p256dh;
      const auth = subscription.keys?.auth;
      // p256dh is an uncompressed P-256 point (65 bytes), auth a 16-byte secret, both base64url (RFC 8291).
      if (typeof p256dh !== 'string' || !BASE64URL.test(p256dh) || Buffer.from(p256dh, 'base64url').length !== 65) {
        return fail('must be the base64url P-256 public key (65 bytes) from the subscription', `${field}.keys.p256dh`);
      }
      if (typeof auth !== 'string' || !BASE64URL.test(auth) || Buffer.from(auth, 'base64url').length !== 16) {
        return fail('must be the base64url 16-byte auth secret from the subscription', `${field}.keys.auth`);
      }
      const stored = JSON.stringify({
        endpoint: endpoint.toString(),
        expirationTime: subscription.expirationTime ?? null,
        keys: { p256dh, auth },
      });
      return { ok: true, value: { token: stored, tokenHash: deviceTokenHash(endpoint.toString()) } };
    }
  }
}

function identity(token: string): NormalizedToken {
  return { token, tokenHash: deviceTokenHash(token) };
}

/** The 32-byte SHA-256 `subscribers.token_hash` stores (seeding scripts make their rows' hashes with it too). */
export function deviceTokenHash(value: string): Buffer {
  // One-shot hash(): no Hash object per token. createHash().update().digest() was ~6% of a bulk import's CPU profile,
  // twice per line (docs/performance.md, "Subscriber import").
  return hash('sha256', value, 'buffer');
}

/** A token hash as a string key (Map, Set) that keeps every byte: latin1 maps each byte to one character. */
export function tokenHashKey(platform: Platform, tokenHash: Uint8Array): string {
  return `${platform}:${Buffer.from(tokenHash.buffer, tokenHash.byteOffset, tokenHash.byteLength).toString('latin1')}`;
}

export function isLocale(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}
