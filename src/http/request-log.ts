import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';

/**
 * One log line per request, written when it is answered, instead of Fastify's two ("incoming request" with the
 * request, then "request completed" with the status). Measured on the accept path (bench/README.md, "Accept path"):
 * formatting and writing the second line cost about as much as one of its SQL statements. The line keeps what both
 * said: request id (`reqId`, pino's child binding), method, URL, client address, status and time.
 *
 * Fastify calls this once for every answered request, logging or not, so it is also where the request's latency is
 * observed (`clarion_http_request_duration_seconds`): no hook of its own in every request's chain. The route label is
 * the route's pattern (`/api/v1/notifications/:id`), never the URL, so ids do not multiply the series; requests that
 * matched no route share `unmatched`.
 */
export class OneLineRequestLog extends LogController {
  constructor(private readonly metrics?: ClarionMetrics) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const responseTime = reply.elapsedTime;
    this.metrics?.httpDuration.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: reply.statusCode }, responseTime / 1000);
    const line = { req: { method: request.method, url: request.url, remoteAddress: request.ip }, res: { statusCode: reply.statusCode }, responseTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
