import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { AppDependencies } from './app-types.ts';

/** Route options an endpoint module may set. Not `config`: whom a route takes is stated in the route table only. */
type EndpointOptions<S extends FastifySchema> = Omit<
  RouteShorthandOptions<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    S,
    TypeBoxTypeProvider,
    FastifyBaseLogger
  >,
  'config'
>;

type EndpointHandler<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider,
  FastifyBaseLogger
>;

/** What one endpoint module contributes to the route table (src/http/routes.ts): its schema, hooks and handler. */
export interface Endpoint {
  options: EndpointOptions<FastifySchema>;
  handler: EndpointHandler<FastifySchema>;
  /**
   * The handler re-reads the API key's standing inside its own transaction (src/http/admission.ts), so the auth hook
   * may serve the key from its short cache. Set by `sendEndpoint`, never by hand.
   */
  confirmsCachedKey?: true;
  /** The handler reads the body's exact text (src/http/raw-body.ts), as a signature check over it must. */
  keepsRawBody?: true;
}

/** An endpoint module's export: builds the endpoint on the app's dependencies. */
export type EndpointFactory = (deps: AppDependencies) => Endpoint;

/**
 * Declares an endpoint. The same shape as `app.post(url, options, handler)` without the url, so TypeBox infers the
 * request and reply types from `options.schema` exactly as it does there; the method, url and auth come from the
 * route table.
 */
export function endpoint<const S extends FastifySchema>(
  options: EndpointOptions<S>,
  handler: EndpointHandler<S>,
): Endpoint {
  // The table holds endpoints of every schema; the types it erases here were checked against the schema above.
  return { options, handler } as unknown as Endpoint;
}
