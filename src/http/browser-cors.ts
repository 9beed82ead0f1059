import type { ClarionApp } from './app-types.ts';
import type { Route } from './routes.ts';

/** What the browser SDK sends: its key, JSON, and (optionally) an Idempotency-Key. Never the CSRF header. */
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key';
/** What the SDK may read of an answer beyond the simple headers: how long to wait, and the id to quote. */
const EXPOSED_HEADERS = 'retry-after, x-request-id';
/** Browsers cache a preflight at most this long anyway (Chromium: 2 hours; Firefox: 24 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * CORS for the few /api/v1 routes that customers' web pages call through the browser SDK (rows with `browser: true`
 * in src/http/routes.ts: registering a subscriber, unsubscribing, the Web Push public key). Any origin may call them,
 * with a key and without credentials: `Access-Control-Allow-Origin: *` never lets a browser send cookies, so the
 * dashboard session cannot ride along, and X-CSRF-Token is not an allowed header (docs/dashboard.md, CSRF). Every
 * other route still answers no CORS at all.
 *
 * Preflights (OPTIONS) are answered here, before routing decides anything, so the route table stays the list of
 * real operations: there is no OPTIONS row to register.
 */
export function registerBrowserCors(app: ClarionApp, routes: readonly Route[]): void {
  const browserRoutes = routes
    .filter((route) => route.browser)
    .map((route) => ({ method: route.method, path: pathPattern(route.url) }));
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const methods = browserRoutes.filter((route) => route.path.test(path)).map((route) => route.method);
    if (methods.length === 0) return;
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    if (request.method !== 'OPTIONS') return;
    return reply
      .code(204)
      .header('access-control-allow-methods', methods.join(', '))
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
      .send();
  });
}

/** Fastify's /a/:id/b as a regular expression for concrete paths: a parameter is one non-empty path segment. */
function pathPattern(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${escaped.join('/')}/?$`);
}
