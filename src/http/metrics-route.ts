import { createHash, timingSafeEqual } from 'node:crypto';
import type { ClarionApp } from './app-types.ts';
import { unauthorized } from './auth.ts';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';

/**
 * GET /metrics on the main port, only when CLARION_METRICS_TOKEN is set, and only with `Authorization: Bearer
 * <token>`: the main port usually faces the internet, and metrics name routes, volumes and error rates an outsider
 * has no business reading. Without the option the route does not exist (404, like any unknown path); the separate
 * listener of CLARION_METRICS_PORT (src/metrics/metrics-listener.ts) serves the same text on a private address instead.
 * Hidden from the OpenAPI document: it is for Prometheus, not for API callers.
 */
export function registerMetricsRoute(app: ClarionApp, metrics: ClarionMetrics, token: string | undefined): void {
  if (!token) return;
  const expected = digest(token);
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const header = request.headers.authorization;
    const presented = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : null;
    // Digests of equal length, compared in constant time: neither the token's length nor its first wrong byte leaks.
    if (presented === null || !timingSafeEqual(digest(presented), expected))
      throw unauthorized('Send the metrics token as Authorization: Bearer <CLARION_METRICS_TOKEN>.');
    return reply.header('content-type', metrics.contentType).send(await metrics.render());
  });
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
