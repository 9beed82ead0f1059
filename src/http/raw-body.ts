import type { FastifyRequest } from 'fastify';

/**
 * The exact JSON text of a request, kept for the routes that verify a signature over it (a GitHub relay: HMAC over
 * the bytes received, which re-serialising the parsed body would not reproduce). Only routes whose endpoint sets
 * `keepsRawBody` keep it, and only for the request's life.
 */
const rawBodies = new WeakMap<FastifyRequest, string>();

export function keepRawBody(request: FastifyRequest, body: string): void {
  if (request.routeOptions.config.keepsRawBody === true) rawBodies.set(request, body);
}

/** The body as received, on a route that keeps it; '' for a request without one. */
export function rawBodyOf(request: FastifyRequest): string {
  return rawBodies.get(request) ?? '';
}
