import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes = 256 bits, written as 43 base64url characters: the value of the session cookie. */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** Domain separation: the CSRF token is a MAC of this text under the session token, never the token itself. */
const CSRF_LABEL = 'clarion csrf v1';

export interface GeneratedSessionToken {
  /** Goes into the cookie only; never stored, never logged. */
  value: string;
  /** SHA-256 of the value, hex: what the sessions table keeps and looks up. */
  hash: string;
}

export function generateSessionToken(): GeneratedSessionToken {
  const value = randomBytes(TOKEN_BYTES).toString('base64url');
  return { value, hash: hashSessionToken(value) };
}

/** A fast hash is enough: the token has 256 random bits, so there is nothing to brute-force (as with API keys). */
export function hashSessionToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function looksLikeSessionToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/**
 * The session's CSRF token, derived rather than stored: HMAC-SHA256 of a fixed label keyed by the session token.
 * Only a page that can read our JSON (same origin: there is no CORS) learns it, and the database, which holds only
 * the token's hash, cannot produce it.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update(CSRF_LABEL).digest('base64url');
}

/** Constant-time comparison of two secrets of any length (hashing first makes the lengths equal). */
export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(
    createHash('sha256').update(presented).digest(),
    createHash('sha256').update(expected).digest(),
  );
}
