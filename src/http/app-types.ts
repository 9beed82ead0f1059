import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Config } from '../config/load-config.ts';
import type { Clock } from '../domain/clock.ts';
import type { ApiKeyKind } from '../domain/api-key-secret.ts';
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
}

/** Who is calling: resolved from the Bearer key before the body is even read. */
export interface AuthContext {
  keyId: string;
  accountId: string;
  kind: ApiKeyKind;
  /** Channel codes the key may use; null = every channel of the account. */
  channels: string[] | null;
}

/** Which keys a route accepts: secret keys only (the default for /api/v1) or publishable ones as well. */
export type RouteAuth = 'secret' | 'any' | 'none';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
}
