import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { templateSchemas } from '../domain/live-activities/live-activity-templates.ts';
import type { AppDependencies, ClarionApp } from './app-types.ts';
import { ErrorEnvelope } from './schemas.ts';
import { SESSION_COOKIE } from './session-cookie.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of every route (src/http/openapi.ts), built on the first call. */
    openApiDocument(): Promise<Record<string, unknown>>;
  }
}

/** Fields of each Live Activity template, published as components so callers see them in the docs. */
const templateComponents: Record<string, TSchema> = Object.fromEntries(
  Object.values(templateSchemas).map((schema) => [String((schema as { title?: string }).title), schema]),
);

/** Where the rendered docs live: the Swagger UI page and its assets. */
const DOCS_PREFIX = '/docs';

function swaggerOptions(deps: AppDependencies): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Clarion API',
        version: '1.0.0',
        description:
          'Push notifications to every subscriber of a channel on iOS, Android and the web, and Live Activities. Errors use one envelope; see docs/errors.md for every code.',
      },
      servers: [{ url: deps.config.baseUrl }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'clr_sk_… (secret) or clr_pk_… (publishable) API key.',
          },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description:
              'Dashboard session (docs/dashboard.md): acts like a secret key for every channel; requests that change something also need the X-CSRF-Token header.',
          },
        },
        schemas: templateComponents as never,
      },
      security: [{ apiKey: [] }, { session: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  };
}

/** What the document reads of a route: the options Fastify passed to its onRoute hooks. */
type RecordedRoute = Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>;

/**
 * Builds the docs app: a Fastify instance of its own with @fastify/swagger and @fastify/swagger-ui, holding a
 * bodiless copy of every route of the app (same method, url, schema and config, no handler logic, no validation), so
 * @fastify/swagger generates the document from exactly the schemas that validate requests in the app.
 */
async function buildDocsApp(app: ClarionApp, routes: RecordedRoute[], deps: AppDependencies) {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  const docs: FastifyInstance = Fastify({
    exposeHeadRoutes: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 128 },
  });
  // The copies validate nothing and answer nothing: only their schemas are read.
  docs.setValidatorCompiler(() => () => true);
  docs.setSerializerCompiler(() => (data) => JSON.stringify(data));
  for (const schema of Object.values(app.getSchemas())) docs.addSchema(schema);
  await docs.register(swagger, swaggerOptions(deps));
  await docs.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: { deepLinking: true } });
  for (const route of routes) {
    docs.route({ ...route, handler: async () => null });
  }
  await docs.ready();
  return docs;
}

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same ones that validate requests), served at
 * /api/v1/openapi.json and rendered at /docs with the swagger-ui assets bundled in the package (no CDN). Neither is
 * loaded at start: @fastify/swagger, @fastify/swagger-ui (and what they load) are imported on the first request for
 * the document or the docs, which builds them once (a few hundred milliseconds) and keeps them. The app records each
 * route's options as it registers them, as @fastify/swagger's own hook would.
 */
export function registerOpenApi(app: ClarionApp, deps: AppDependencies): void {
  app.addSchema(ErrorEnvelope);
  const routes: RecordedRoute[] = [];
  app.addHook('onRoute', (route) => {
    // As @fastify/swagger: the HEAD twins Fastify adds for GET routes are left out, and so is the docs' own route.
    if (route.method === 'HEAD' || route.url === DOCS_PREFIX || route.url === `${DOCS_PREFIX}/*`) return;
    // Kept by reference, as @fastify/swagger keeps them: the document is built from the routes as they end up.
    routes.push(route);
  });
  let docsApp: Promise<FastifyInstance> | undefined;
  const built = (): Promise<FastifyInstance> => {
    docsApp ??= buildDocsApp(app, routes, deps).catch((error: unknown) => {
      docsApp = undefined;
      throw error;
    });
    return docsApp;
  };
  app.decorate('openApiDocument', async () => (await built()).swagger() as unknown as Record<string, unknown>);
  app.addHook('onClose', async () => {
    if (docsApp) await (await docsApp).close();
  });
  // The Swagger UI page and its assets, answered by the docs app's own routes (@fastify/swagger-ui, @fastify/static).
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const docs = await built();
    // GET for HEAD too: the app's HEAD route drops the body the GET answers with.
    const response = await docs.inject({ method: 'GET', url: request.url, headers: request.headers });
    const {
      'content-length': _length,
      connection: _connection,
      'transfer-encoding': _encoding,
      ...headers
    } = response.headers;
    return reply.code(response.statusCode).headers(headers).send(response.rawPayload);
  };
  app.get(DOCS_PREFIX, { schema: { hide: true } }, forward);
  app.get(`${DOCS_PREFIX}/*`, { schema: { hide: true } }, forward);
}
