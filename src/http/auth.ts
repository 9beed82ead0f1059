import type { FastifyRequest } from 'fastify';
import { looksLikeApiKey } from '../domain/api-key-secret.ts';
import { channelScopeOf, findApiKeyByValue, isApiKeyActive, touchApiKey } from '../store/api-keys-store.ts';
import { ApiError } from './api-error.ts';
import type { AppDependencies, ClarionApp } from './app-types.ts';
import { RateLimiter } from './rate-limiter.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Resolves the Bearer key on every /api/v1 route before the body is read (so an unauthenticated caller gets 401,
 * never a validation error), enforces the route's key kind, then the per-key rate limit.
 * Routes say which keys they take with `config.auth`: 'secret' (default), 'any' (publishable too) or 'none'.
 */
export function registerAuth(app: ClarionApp, deps: AppDependencies): void {
  const limiter = new RateLimiter(deps.config.rateLimitPerSecond, deps.config.rateLimitBurst, deps.clock);
  const sweep = setInterval(() => limiter.sweep(), 60_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const mode = request.routeOptions.config.auth ?? (request.url.startsWith('/api/v1/') ? 'secret' : 'none');
    if (mode === 'none' || request.routeOptions.url === undefined) return;

    const presented = BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (!presented || !looksLikeApiKey(presented)) throw unauthorized();
    const now = deps.clock.now();
    const key = await findApiKeyByValue(deps.store.db, presented);
    if (!key || !isApiKeyActive(key, now)) throw unauthorized();
    if (mode === 'secret' && key.kind !== 'secret') {
      throw new ApiError('forbidden', { message: 'A publishable key may only register and unsubscribe subscribers; use a secret key for this.' });
    }
    request.auth = { keyId: key.id, accountId: key.account_id, kind: key.kind, channels: channelScopeOf(key) };

    const retryAfter = limiter.take(key.id);
    if (retryAfter > 0) {
      throw new ApiError('rate_limited', { headers: { 'retry-after': String(retryAfter) }, details: { retryAfterSeconds: retryAfter } });
    }
    await touchApiKey(deps.store.db, key, now);
  });
}

function unauthorized(): ApiError {
  return new ApiError('unauthorized', { headers: { 'www-authenticate': 'Bearer' } });
}
