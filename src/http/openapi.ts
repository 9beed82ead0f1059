import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from 'typebox';
import { templateSchemas } from '../domain/live-activities/live-activity-templates.ts';
import type { AppDependencies, ClarionApp } from './app-types.ts';
import { ErrorEnvelope } from './schemas.ts';
import { SESSION_COOKIE } from './session-cookie.ts';

/** Fields of each Live Activity template, published as components so callers see them in the docs. */
const templateComponents: Record<string, TSchema> = Object.fromEntries(
  Object.values(templateSchemas).map((schema) => [String((schema as { title?: string }).title), schema]),
);

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same ones that validate requests), served at
 * /api/v1/openapi.json and rendered at /docs with the swagger-ui assets bundled in the package (no CDN).
 */
export async function registerOpenApi(app: ClarionApp, deps: AppDependencies): Promise<void> {
  app.addSchema(ErrorEnvelope);
  await app.register(swagger, {
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
  });
  // The document itself is served at GET /api/v1/openapi.json, a row of the route table (src/http/routes.ts).
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
}
