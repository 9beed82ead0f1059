import { registerAjvFormats, TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { newId } from '../domain/ids.ts';
import { ApiError } from './api-error.ts';
import type { AppDependencies, ClarionApp } from './app-types.ts';
import { registerAuth } from './auth.ts';
import { registerHealth } from './endpoints/health/health.ts';
import { registerErrorHandling } from './error-handler.ts';
import { registerIdempotency } from './idempotency.ts';
import { REQUEST_BODY_LIMIT_BYTES } from './limits.ts';
import { registerOpenApi } from './openapi.ts';
import { registerApiRoutes } from './routes.ts';

export interface BuildAppOptions extends AppDependencies {
  /** pino options or an instance; false (the default for tests) logs nothing. */
  logger?: FastifyServerOptions['logger'];
  loggerInstance?: FastifyServerOptions['loggerInstance'];
}

/**
 * The app factory: builds the whole HTTP interface on the given dependencies and never listens, so tests drive it
 * with inject() and src/cli/serve.ts is the only place that opens a port.
 */
export async function buildApp(options: BuildAppOptions): Promise<ClarionApp> {
  const { store, config, clock, queue } = options;
  const deps: AppDependencies = { store, config, clock, queue };
  registerAjvFormats();
  const app = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? false }),
    bodyLimit: REQUEST_BODY_LIMIT_BYTES,
    genReqId: () => newId('request'),
    // Our own hook answers 503 in the error envelope while closing.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>() as ClarionApp;
  app.setValidatorCompiler(TypeBoxValidatorCompiler);

  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      throw new ApiError('unavailable', { message: 'The server is shutting down; retry against another instance.' });
    }
  });

  // Several clients send "Content-Type: application/json" with an empty body on bodiless POSTs (unsubscribe):
  // treat that as no body; everything else goes through Fastify's own parser (which guards against __proto__).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });

  registerErrorHandling(app);
  await registerOpenApi(app, deps);
  registerAuth(app, deps);
  registerIdempotency(app, deps);
  registerHealth(app, deps, () => closing);
  registerApiRoutes(app, deps);
  return app;
}
