import { endpoint, type Endpoint } from '../../endpoint.ts';

/** GET /api/v1/openapi.json: the document @fastify/swagger builds from every route's schema, on the first request (src/http/openapi.ts). */
export function getOpenApiEndpoint(): Endpoint {
  return endpoint({ schema: { hide: true } }, async (request) => request.server.openApiDocument());
}
