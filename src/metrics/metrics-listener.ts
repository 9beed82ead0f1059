import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../config/load-config.ts';
import type { ClarionMetrics } from './clarion-metrics.ts';

/** Where the metrics listen when CLARION_METRICS_PORT is not set: the port Prometheus exporters commonly use. */
export const DEFAULT_METRICS_PORT = 9464;

/** The metrics port is taken: a ConfigError that names CLARION_METRICS_PORT. */
export class MetricsPortInUseError extends ConfigError {}

export interface MetricsListener {
  /** host:port it listens on (the port is the real one when 0 was asked). */
  address: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The metrics on a port of their own (CLARION_METRICS_PORT), bound to CLARION_METRICS_HOST (127.0.0.1 by default), with
 * no token: reachable by a Prometheus on the same host or network namespace, never by the public on the API's port.
 * Every role serves it, so a `serve --worker` process, which has no HTTP API, can be scraped too. A bare node:http
 * server rather than a second Fastify: one route, and a worker process keeps the HTTP stack unloaded (src/server.ts).
 */
export async function startMetricsListener(
  metrics: ClarionMetrics,
  options: { host: string; port: number },
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: metrics are at GET /metrics\n');
      return;
    }
    metrics.render().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': metrics.contentType })
          .end(request.method === 'HEAD' ? undefined : text),
      () =>
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Could not collect the metrics.\n'),
    );
  });
  server.listen(options.port, options.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new MetricsPortInUseError(
        `CLARION_METRICS_PORT: port ${options.port} is already in use on ${options.host}`,
      );
    throw error;
  }
  const { address, port } = server.address() as AddressInfo;
  return {
    address: `${address.includes(':') ? `[${address}]` : address}:${port}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
