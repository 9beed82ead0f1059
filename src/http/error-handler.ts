import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { describeSchemaErrors, type SchemaError } from '../domain/schema-errors.ts';
import { ApiError } from './api-error.ts';
import type { ClarionApp } from './app-types.ts';
import { unauthorized } from './auth.ts';
import { errorCatalog } from './error-catalog.ts';
import { REQUEST_BODY_LIMIT_BYTES } from '../domain/limits.ts';
import { isRetryableConflict, isStorageUnavailable } from '../store/store-errors.ts';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';

/** The error envelope of docs/design.md 2.1. */
export function errorEnvelope(request: FastifyRequest, error: ApiError) {
  return {
    success: false as const,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId: String(request.id),
    },
  };
}

/**
 * Turns every failure into the envelope. Framework errors (bad JSON, wrong content type, body too large, schema
 * validation) map onto catalog codes; anything unexpected becomes a generic 500 whose cause is only logged.
 */
export function registerErrorHandling(
  app: ClarionApp,
  isCachedKeyStillActive: (request: FastifyRequest) => Promise<boolean>,
  metrics: ClarionMetrics,
): void {
  app.setErrorHandler(async (raw: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let error = toApiError(raw, request);
    // A key served from the cache (src/http/api-key-cache.ts) and revoked since gets the 401 it would have had
    // without the cache, whatever else went wrong first. (If the database cannot say, the first error stands.)
    if (
      error.code !== 'unauthorized' &&
      request.auth?.keyFromCache &&
      !(await isCachedKeyStillActive(request).catch(() => true))
    )
      error = unauthorized();
    if (error.status >= 500) {
      request.log.error({ err: raw, requestId: request.id }, 'request failed');
    }
    metrics.apiErrors.inc({ code: error.code });
    if (error.code === 'quota_exceeded') metrics.quotaRejections.inc();
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    return reply.code(error.status).send(errorEnvelope(request, error));
  });

  app.setNotFoundHandler(async (request, reply) => {
    const error = new ApiError('not_found', { message: `No route ${request.method} ${request.url.split('?')[0]}.` });
    metrics.apiErrors.inc({ code: error.code });
    return reply.code(404).send(errorEnvelope(request, error));
  });
}

/**
 * Fastify's `frameworkErrors` hook: failures found before routing (a malformed URL, an over-long path parameter)
 * skip the onRequest hooks and the error handler, so they get the envelope and X-Request-Id here.
 */
export function sendFrameworkError(raw: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = toApiError(raw, request);
  reply.header('x-request-id', request.id);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).send(errorEnvelope(request, error));
}

function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const part = (error.validationContext ?? 'body') as 'body' | 'querystring' | 'params' | 'headers';
    // No body at all where the route needs one (an empty body is parsed as none): that is not JSON, not a field.
    if (part === 'body' && request.body === undefined) {
      return new ApiError('invalid_json', { message: 'The body is empty; send a JSON object.' });
    }
    const schema = (request.routeOptions.schema as Record<string, TSchema> | undefined)?.[part];
    const fields = schema ? describeSchemaErrors(schema, error.validation as unknown as SchemaError[]) : [];
    return new ApiError('validation_failed', { details: { fields } });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', {
        message: `The request body is over the ${REQUEST_BODY_LIMIT_BYTES / 1024} KiB limit.`,
        details: { limit: 'request_body', limitBytes: REQUEST_BODY_LIMIT_BYTES },
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', { message: 'The body is empty; send a JSON object.' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json');
  }
  if (error instanceof SyntaxError && error.statusCode === 400) return new ApiError('invalid_json');
  // The operator's outage (database down, disk full, read-only), not a bug: 503 so callers retry (store-errors.ts).
  // So is a transaction PostgreSQL kept aborting for a deadlock or a serialization conflict: it stored nothing.
  if (isStorageUnavailable(error) || isRetryableConflict(error)) return new ApiError('unavailable');
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('bad_request', { message: `${errorCatalog.bad_request.message} ${error.message}` });
  }
  return new ApiError('internal_error');
}
