import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Config } from '../config/load-config.ts';
import type { Clock } from '../domain/clock.ts';
import type { ProviderClientRegistry } from '../delivery/provider-client-registry.ts';
import type { ApiKeyKind } from '../domain/api-key-secret.ts';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { Store } from '../store/database.ts';

/** The Fastify instance with TypeBox inference: request types come from the same schemas that validate them. */
export type ClarionApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Everything a handler may use, passed explicitly (no globals, no container). */
export interface AppDependencies {
  store: Store;
  config: Config;
  clock: Clock;
  /** Where accepted work goes: the notification's dispatch job is enqueued in the transaction that stores it. */
  queue: JobQueue;
  /** The instance key (resolveSecretKey) that seals secrets at rest, such as webhook signing secrets. */
  secretKey: Buffer;
  /** The process's metrics (src/metrics/): the API counts requests, errors, accepted notifications and quota refusals. */
  metrics: ClarionMetrics;
  /** Each app's pooled provider clients, for "Test credentials" (src/delivery/app-credentials-check.ts). */
  providerClients: Pick<ProviderClientRegistry, 'apnsClient' | 'fcmClient'>;
}

/**
 * Who is calling: resolved from the Bearer key, or from the dashboard session cookie, before the body is even read.
 * A session acts like a secret key for all channels of its current account (src/http/auth.ts).
 */
export interface AuthContext {
  /** The API key used; null when the caller is a signed-in dashboard session. */
  keyId: string | null;
  accountId: string;
  kind: ApiKeyKind;
  /** Channel codes the key may use; null = every channel of the account. */
  channels: string[] | null;
  /** The dashboard session, when the caller is signed in rather than using a key. */
  session: { id: string; userId: string } | null;
  /**
   * True while the key was served from the short key cache (src/http/api-key-cache.ts) and nothing in this request
   * has re-read its standing yet; admission re-reads it in its transaction (src/http/admission.ts, which clears this),
   * and an error answered before that confirms it (src/http/error-handler.ts).
   */
  keyFromCache: boolean;
}

/**
 * Which callers a route accepts: secret keys or a session ('secret'), publishable keys as well ('any-key'), a
 * dashboard session only ('session': key management and sign-out), anyone ('none'), or anyone while a key or session
 * presented is checked as for 'any-key' and names the account ('optional-key'). Every /api/v1 route states it in the
 * route table (src/http/routes.ts); there is no default.
 */
export type RouteAuth = 'secret' | 'any-key' | 'session' | 'optional-key' | 'none';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The endpoint re-reads the API key's standing in its own transaction (src/http/endpoint.ts `confirmsCachedKey`). */
    confirmsCachedKey?: boolean;
    /** The endpoint reads the body's exact text (src/http/raw-body.ts; `Endpoint.keepsRawBody`). */
    keepsRawBody?: boolean;
  }
}
