import { registerAjvFormats, TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { newId } from '../domain/ids.ts';
import { keepRawBody } from './raw-body.ts';
import { ApiError, validationFailed } from './api-error.ts';
import type { AppDependencies, ClarionApp } from './app-types.ts';
import { isCachedKeyStillActive, registerAuth } from './auth.ts';
import { registerDashboard } from './dashboard-static.ts';
import { registerHealth } from './endpoints/health/health.ts';
import { registerJoinPages } from './endpoints/join/join-routes.ts';
import { registerSdkFiles } from './endpoints/sdk/sdk-files.ts';
import { handleClientError } from './client-error.ts';
import { registerErrorHandling, sendFrameworkError } from './error-handler.ts';
import { registerIdempotency } from './idempotency.ts';
import { jsonBodyProblem } from './json-body.ts';
import { lazySerializerFactory } from './lazy-serializers.ts';
import { REQUEST_BODY_LIMIT_BYTES } from '../domain/limits.ts';
import { registerOpenApi } from './openapi.ts';
import { registerApiRoutes, routeTable } from './routes.ts';
import { registerBrowserCors } from './browser-cors.ts';
import { OneLineRequestLog } from './request-log.ts';
import { ClarionMetrics } from '../metrics/clarion-metrics.ts';
import { registerMetricsRoute } from './metrics-route.ts';
import { registerHttpMetrics } from './request-metrics.ts';
import { watchQueue } from '../metrics/queue-gauges.ts';
import type { ApnsProviderTokens } from '../delivery/apns/apns-provider-token.ts';
import { createProviderClientRegistry } from '../delivery/provider-client-registry.ts';

export interface BuildAppOptions extends Omit<AppDependencies, 'metrics' | 'providerClients'> {
  /** The process's metrics (src/server.ts makes one per process); a fresh registry of its own when absent (tests). */
  metrics?: ClarionMetrics;
  /**
   * The worker's app clients when it runs in this process (src/server.ts); absent: the app keeps a registry of its own,
   * signing with `providerTokens` (the process's APNs provider tokens; absent: its own).
   */
  providerClients?: AppDependencies['providerClients'];
  providerTokens?: ApnsProviderTokens;
  /** pino options or an instance; false (the default for tests) logs nothing. */
  logger?: FastifyServerOptions['logger'];
  loggerInstance?: FastifyServerOptions['loggerInstance'];
}

/** An app built without the process's metrics (tests) gets a registry of its own that still reads the queue. */
function appOwnMetrics(store: BuildAppOptions['store'], clock: BuildAppOptions['clock']): ClarionMetrics {
  const metrics = new ClarionMetrics();
  watchQueue(metrics, store, clock);
  return metrics;
}

/**
 * The app factory: builds the whole HTTP interface on the given dependencies and never listens, so tests drive it
 * with inject() and src/cli/serve.ts is the only place that opens a port.
 */
export async function buildApp(options: BuildAppOptions): Promise<ClarionApp> {
  const { store, config, clock, queue, secretKey } = options;
  const metrics = options.metrics ?? appOwnMetrics(store, clock);
  registerAjvFormats();
  const app = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? false }),
    bodyLimit: REQUEST_BODY_LIMIT_BYTES,
    genReqId: () => newId('request'),
    logController: new OneLineRequestLog(),
    // Our own hook answers 503 in the error envelope while closing.
    return503OnClosing: false,
    // The longest path parameter is a Live Activity stream key (128 characters); longer ones are refused (400).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 128 },
    // X-Forwarded-Proto / -For are believed only from the configured proxies (CLARION_TRUST_PROXY).
    ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
    // A malformed URL or an over-long path parameter is refused before routing: still answer in the envelope.
    frameworkErrors: sendFrameworkError as FastifyServerOptions['frameworkErrors'],
    // …and so is a request Node's HTTP parser refuses before there is a request at all (src/http/client-error.ts).
    clientErrorHandler: handleClientError,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>() as ClarionApp;
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  let providerClients = options.providerClients;
  if (!providerClients) {
    const own = createProviderClientRegistry({
      store,
      config,
      clock,
      logger: app.log,
      secretKey,
      ...(options.providerTokens ? { providerTokens: options.providerTokens } : {}),
    });
    app.addHook('onClose', () => own.close());
    providerClients = own;
  }
  const deps: AppDependencies = {
    store,
    config,
    clock,
    queue,
    secretKey,
    metrics,
    providerClients,
  };

  // preClose runs when close() starts, before in-flight requests drain (onClose only runs after they have), so
  // requests still arriving on open connections during the drain get 503 and /readyz turns unready at once.
  let closing = false;
  app.addHook('preClose', async () => {
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
  // treat that as no body; everything else goes through Fastify's own parser (which guards against __proto__),
  // then through the checks JSON itself does not make (nesting depth, NUL characters).
  // Fastify also parses text/plain by default: drop it, so any body that is not JSON gets 415.
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string') keepRawBody(request, body);
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      const problem = jsonBodyProblem(value);
      return problem ? done(validationFailed([problem]), undefined) : done(null, value);
    });
  });

  registerHttpMetrics(app, metrics);
  registerErrorHandling(app, (request) => isCachedKeyStillActive(deps, request), metrics);
  registerBrowserCors(app, routeTable);
  registerOpenApi(app, deps);
  registerAuth(app, deps);
  registerIdempotency(app, deps);
  registerHealth(app, deps, () => closing);
  registerMetricsRoute(app, metrics, config.metricsToken);
  registerApiRoutes(app, deps);
  registerSdkFiles(app, config.baseUrl);
  registerJoinPages(app, deps);
  await registerDashboard(app);
  return app;
}
