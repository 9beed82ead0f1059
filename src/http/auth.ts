import type { FastifyRequest } from 'fastify';
import { looksLikeApiKey } from '../domain/api-key-secret.ts';
import {
  channelScopeOf,
  findApiKey,
  findApiKeyByValue,
  isApiKeyActive,
  touchApiKey,
} from '../store/api-keys-queries.ts';
import { ApiKeyCache } from './api-key-cache.ts';
import { touchSession } from '../store/sessions-queries.ts';
import { ApiError } from './api-error.ts';
import type { AppDependencies, ClarionApp } from './app-types.ts';
import { RateLimiter, sweepWhileOpen } from './rate-limiter.ts';
import { assertCsrf, hasSessionCookie, resolveSession } from './session-auth.ts';
import { clearedSessionCookie, isHttps } from './session-cookie.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const EXPECTED_FORM = 'Authorization: Bearer clr_sk_…';

/**
 * What a 401 says about the Authorization header. One code for every problem (docs/design.md 2.1), but the message
 * names what is wrong with the header itself: missing, another scheme, or no value of a key's public shape
 * (src/domain/api-key-secret.ts). None of these depends on any stored key. A key of the right shape that is unknown,
 * revoked or expired gets the catalog's one message (src/http/error-catalog.ts), on every path that can refuse it
 * (here, admission's re-check of a cached key, the error handler's), so those three stay indistinguishable.
 */
const HEADER_PROBLEMS = {
  missing: `This request needs an API key, sent as ${EXPECTED_FORM} (a secret key; an app registering its device sends its publishable key, clr_pk_…).`,
  scheme: `The Authorization header must use the Bearer scheme (${EXPECTED_FORM}).`,
  malformed: `The value after Bearer is not an API key: a key is clr_sk_ or clr_pk_ followed by 32 characters, exactly as it was shown when created (${EXPECTED_FORM}).`,
};

/** The key a header presents, or what is wrong with the header. */
function presentedKey(header: string | undefined): { key: string } | { problem: keyof typeof HEADER_PROBLEMS } {
  if (header === undefined || header.trim() === '') return { problem: 'missing' };
  if (!/^Bearer(\s|$)/i.test(header.trim())) return { problem: 'scheme' };
  const key = BEARER.exec(header)?.[1];
  return key !== undefined && looksLikeApiKey(key) ? { key } : { problem: 'malformed' };
}

/** The per-publishable-key ceiling allows bursts of this many seconds' worth (CLARION_PUBLISHABLE_RATE_LIMIT). */
export const PUBLISHABLE_CEILING_BURST_SECONDS = 10;

/**
 * Resolves the caller on every /api/v1 route before the body is read (so an unauthenticated caller gets 401,
 * never a validation error), enforces the route's caller kind, then the rate limit (per secret key or session; per
 * install and per key for publishable keys).
 * Routes say whom they take with `config.auth` (src/http/app-types.ts RouteAuth), set from the route table
 * (src/http/routes.ts). No /api/v1 route may leave it out: registering one without it fails, so none can fall open.
 *
 * A request with an Authorization header is a key request. One without, but with the dashboard session cookie, is
 * a session request: it acts like a secret key for every channel of the session's current account, so the
 * dashboard calls the very endpoints API clients call; state changes also need the session's CSRF token.
 */
export function registerAuth(app: ClarionApp, deps: AppDependencies): void {
  const { config, clock } = deps;
  // Secret keys and sessions: one bucket each. Publishable keys: one per (key, client address), since every install of
  // an app shares the key, under a generous ceiling per key (docs/api.md "Rate limit").
  const perCaller = new RateLimiter(config.rateLimitPerSecond, config.rateLimitBurst, clock);
  const perInstall = new RateLimiter(config.publishableRateLimitPerAddress, config.publishableRateLimitBurst, clock);
  const perPublishableKey = new RateLimiter(
    config.publishableRateLimit,
    config.publishableRateLimit * PUBLISHABLE_CEILING_BURST_SECONDS,
    clock,
  );
  sweepWhileOpen(app, [perCaller, perInstall, perPublishableKey]);
  const keyCache = new ApiKeyCache(clock);

  const takeRate = (limiter: RateLimiter, id: string, message?: string) => {
    const retryAfter = limiter.take(id);
    if (retryAfter > 0) {
      throw new ApiError('rate_limited', {
        ...(message ? { message } : {}),
        headers: { 'retry-after': String(retryAfter) },
        details: { retryAfterSeconds: retryAfter },
      });
    }
  };

  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/v1/') && route.config?.auth === undefined) {
      throw new Error(
        `${String(route.method)} ${route.url} does not say whom it takes: give it an auth in src/http/routes.ts`,
      );
    }
  });

  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    // Only routes outside /api/v1 (health, /docs, the dashboard's files) have no auth, and are public.
    const mode = request.routeOptions.config.auth ?? 'none';
    if (mode === 'none' || request.routeOptions.url === undefined) return;
    if (mode === 'optional-key' && request.headers.authorization === undefined && !hasSessionCookie(request)) return;

    if (request.headers.authorization === undefined && hasSessionCookie(request)) {
      const session = await resolveSession(deps, request);
      if (!session) {
        // Ended or unknown: say so, and have the browser drop the cookie.
        throw unauthorized('Your dashboard session has ended; sign in again.', {
          'set-cookie': clearedSessionCookie(isHttps(request)),
        });
      }
      assertCsrf(request, session.token);
      request.auth = {
        keyId: null,
        accountId: session.row.account_id,
        kind: 'secret',
        channels: null,
        session: { id: session.row.id, userId: session.row.user_id },
        keyFromCache: false,
      };
      takeRate(perCaller, session.row.id);
      await touchSession(deps.store.db, session.row, deps.clock.now());
      return;
    }

    if (mode === 'session' && request.headers.authorization === undefined)
      throw unauthorized('Sign in to the dashboard to do this.');
    const header = presentedKey(request.headers.authorization);
    if ('problem' in header) throw unauthorized(HEADER_PROBLEMS[header.problem]);
    const presented = header.key;
    const now = deps.clock.now();
    // The cache serves only endpoints that re-read the key in their own transaction (src/http/admission.ts), and
    // not a request with an Idempotency-Key, whose replay (src/http/idempotency.ts) answers before any handler runs.
    const cacheable =
      request.routeOptions.config.confirmsCachedKey === true && request.headers['idempotency-key'] === undefined;
    const cached = cacheable ? keyCache.get(presented) : undefined;
    const key = cached ?? (await findApiKeyByValue(deps.store.db, presented));
    if (!key || !isApiKeyActive(key, now)) throw unauthorized();
    if (!cached) keyCache.set(key);
    if (mode === 'session') {
      // A leaked secret key must not be able to mint keys that outlive its own revocation, nor widen its scope.
      throw new ApiError('forbidden', {
        message:
          'Only a signed-in dashboard session may do this (API keys are managed in the dashboard); no API key can.',
      });
    }
    if (mode === 'secret' && key.kind !== 'secret') {
      throw new ApiError('forbidden', {
        message:
          'A publishable key may only register and unsubscribe subscribers and report Live Activity tokens; use a secret key for this.',
      });
    }
    request.auth = {
      keyId: key.id,
      accountId: key.account_id,
      kind: key.kind,
      channels: channelScopeOf(key),
      session: null,
      keyFromCache: cached !== undefined,
    };
    if (key.kind === 'publishable') {
      takeRate(perInstall, `${key.id} ${request.ip}`, 'Too many requests from this address with this key; slow down.');
      takeRate(
        perPublishableKey,
        key.id,
        'Too many requests with this publishable key from all addresses together; slow down.',
      );
    } else {
      takeRate(perCaller, key.id);
    }
    await touchApiKey(deps.store.db, key, now);
  });
}

/**
 * For an error answered to a request whose key came from the cache before its admission re-read it (a 400 or a 403
 * for the channel scope): is the key still usable? If not, the caller gets the 401 it would have had
 * without the cache. One lookup by primary key, on error paths only.
 */
export async function isCachedKeyStillActive(deps: AppDependencies, request: FastifyRequest): Promise<boolean> {
  const auth = request.auth;
  if (!auth?.keyFromCache || auth.keyId === null) return true;
  const key = await findApiKey(deps.store.db, auth.keyId);
  return key !== undefined && isApiKeyActive(key, deps.clock.now());
}

export function unauthorized(message?: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError('unauthorized', {
    ...(message ? { message } : {}),
    headers: { 'www-authenticate': 'Bearer', ...headers },
  });
}
