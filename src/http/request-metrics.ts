import type { ClarionApp } from './app-types.ts';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';

/**
 * Observes every answered request in `clarion_http_request_duration_seconds`, by method, route pattern and status.
 * The route label is the pattern (`/api/v1/notifications/:id`), never the URL, so ids do not multiply the series;
 * requests that matched no route share `unmatched`. A callback-style onResponse hook (no promise per request), timed
 * with Fastify's own `elapsedTime`. It is not folded into the request log (request-log.ts) because Fastify
 * only reports completion to the log controller when a logger is configured, and metrics must not depend on logging.
 */
export function registerHttpMetrics(app: ClarionApp, metrics: ClarionMetrics): void {
  const histogram = metrics.httpDuration;
  app.addHook('onResponse', (request, reply, done) => {
    histogram.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
