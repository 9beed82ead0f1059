import type { FastifyRequest } from 'fastify';
import { csrfTokenFor, hashSessionToken, looksLikeSessionToken, sameSecret } from '../domain/session-token.ts';
import { findLiveSession, type SessionRow } from '../store/sessions-queries.ts';
import { ApiError } from './api-error.ts';
import type { AppDependencies } from './app-types.ts';
import { readSessionCookie } from './session-cookie.ts';

export const CSRF_HEADER = 'x-csrf-token';
/** Methods that change nothing and so need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface ResolvedSession {
  row: SessionRow;
  /** The raw token from the cookie: needed to derive the CSRF token; never stored or logged. */
  token: string;
}

/** The live session named by the request's cookie, or null (no cookie, a malformed one, or an ended session). */
export async function resolveSession(deps: AppDependencies, request: FastifyRequest): Promise<ResolvedSession | null> {
  const token = readSessionCookie(request.headers.cookie);
  if (token === undefined || !looksLikeSessionToken(token)) return null;
  const row = await findLiveSession(deps.store.db, hashSessionToken(token), deps.clock.now());
  return row ? { row, token } : null;
}

export function hasSessionCookie(request: FastifyRequest): boolean {
  return readSessionCookie(request.headers.cookie) !== undefined;
}

/**
 * CSRF protection for a session request that changes something: it must carry the session's CSRF token in
 * X-CSRF-Token (a header, which another site can neither read nor send without a CORS preflight we never
 * answer), and must not be marked cross-site by the browser (Sec-Fetch-Site, sent by every current browser).
 */
export function assertCsrf(request: FastifyRequest, sessionToken: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  assertNotCrossSite(request);
  const presented = request.headers[CSRF_HEADER];
  if (typeof presented !== 'string' || !sameSecret(presented, csrfTokenFor(sessionToken)))
    throw new ApiError('csrf_failed');
}

/** Sign-in and sign-up have no session yet; they refuse requests a browser marks as sent by another site. */
export function assertNotCrossSite(request: FastifyRequest): void {
  if (request.headers['sec-fetch-site'] === 'cross-site') {
    throw new ApiError('csrf_failed', { message: 'Requests from other sites may not use the dashboard endpoints.' });
  }
}
