import type { FastifyRequest } from 'fastify';
import { SESSION_MAX_MS } from '../domain/session-lifetime.ts';

/**
 * The dashboard session cookie. Hand-written (a parse and a serialize, 30 lines) rather than @fastify/cookie,
 * which is not a dependency; the rules that matter are all here:
 * - HttpOnly: page scripts (and so an XSS) cannot read the token;
 * - SameSite=Lax: other sites' forms and fetches do not carry it (top-level GET links still do, and GETs change nothing);
 * - Secure when the request came over HTTPS (directly, or per X-Forwarded-Proto from a proxy in CLARION_TRUST_PROXY),
 *   so a cookie issued over HTTPS is never sent back over plain HTTP; over plain HTTP (localhost) it must not be set,
 *   or the browser would drop the cookie;
 * - Path=/ and no Domain: this host only.
 */
export const SESSION_COOKIE = 'clarion_session';

export function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

export function sessionCookie(token: string, secure: boolean): string {
  return serialize(token, Math.floor(SESSION_MAX_MS / 1000), secure);
}

/** Tells the browser to forget the cookie (sign-out, or a cookie that names no live session). */
export function clearedSessionCookie(secure: boolean): string {
  return serialize('', 0, secure);
}

function serialize(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The session cookie's value from a Cookie header, or undefined. Session tokens are base64url: no decoding needed. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index !== -1 && part.slice(0, index).trim() === SESSION_COOKIE) return part.slice(index + 1).trim();
  }
  return undefined;
}
