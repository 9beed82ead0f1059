import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyOwner,
} from '../store/idempotency-queries.ts';
import { ApiError, validationFailed } from './api-error.ts';
import type { AppDependencies, AuthContext, ClarionApp } from './app-types.ts';

const HEADER = 'idempotency-key';
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** A claim whose request never finished (the process died mid-request) is given up after this long. */
const ABANDONED_AFTER_MS = 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

/**
 * Idempotency-Key on POSTs (docs/design.md 2.4). The first request claims the key; a 2xx answer is stored and replayed
 * for 24 hours to the same key with the same body (header `Idempotency-Replay: true`). Another body or endpoint
 * gets 409 idempotency_mismatch; a repeat while the first is still running gets 409 conflict. A failed request
 * (any non-2xx) releases the key, so the client can correct and retry it.
 *
 * Keys belong to the caller (the API key, or the dashboard user), not to the whole account: the replay runs before
 * the handler's own checks (channel scope, webhook access), so it may only go back to the caller whose first request
 * passed them. The caller's kind was already checked, for every request, in the onRequest hook of src/http/auth.ts.
 *
 * A response marked `Cache-Control: no-store` (those that show a secret: API key values, webhook signing secrets)
 * is not kept: only its status is, and a replay gets 409 idempotency_not_replayable. Keeping it would store the
 * secret in plain text for 24 hours, and no-store forbids any cache to store any part of the response
 * (https://www.rfc-editor.org/rfc/rfc9111#section-5.2.2.5).
 */
export function registerIdempotency(app: ClarionApp, deps: AppDependencies): void {
  app.decorateRequest('idempotencyKey', null);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers[HEADER];
    if (request.method !== 'POST' || key === undefined || !request.auth) return;
    if (typeof key !== 'string' || !KEY_SHAPE.test(key)) {
      throw validationFailed([{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }]);
    }
    const owner = ownerOf(request.auth);
    const operation = `${request.method} ${request.routeOptions.url}`;
    const requestHash = hashRequest(request.url, request.body);
    const now = deps.clock.now();
    let existing = await claimIdempotencyKey(deps.store.db, { ...owner, key, operation, requestHash, now });
    if (existing && existing.status_code === null && existing.created_at < now - ABANDONED_AFTER_MS) {
      await releaseIdempotencyKey(deps.store.db, { ...owner, key });
      existing = await claimIdempotencyKey(deps.store.db, { ...owner, key, operation, requestHash, now });
    }
    if (!existing) {
      request.idempotencyKey = key;
      return;
    }
    if (existing.operation !== operation || existing.request_hash !== requestHash)
      throw new ApiError('idempotency_mismatch');
    if (existing.status_code === null) {
      throw new ApiError('conflict', {
        message: 'A request with this Idempotency-Key is still being handled; retry shortly.',
      });
    }
    if (existing.response_body === null) throw new ApiError('idempotency_not_replayable');
    return reply
      .code(existing.status_code)
      .header('idempotency-replay', 'true')
      .type('application/json; charset=utf-8')
      .send(existing.response_body);
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const key = request.idempotencyKey;
    if (key === null || !request.auth) return payload;
    request.idempotencyKey = null;
    const owner = ownerOf(request.auth);
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      const responseBody = isNoStore(reply.getHeader('cache-control')) ? null : payload;
      await completeIdempotencyKey(deps.store.db, { ...owner, key, statusCode: reply.statusCode, responseBody });
    } else {
      await releaseIdempotencyKey(deps.store.db, { ...owner, key });
    }
    return payload;
  });
}

/** The key's namespace: the account, and the API key or (for a dashboard session) the signed-in user. */
function ownerOf(auth: AuthContext): IdempotencyOwner {
  return { accountId: auth.accountId, principalId: auth.keyId ?? auth.session!.userId };
}

function isNoStore(cacheControl: ReturnType<FastifyReply['getHeader']>): boolean {
  return typeof cacheControl === 'string' && /(^|,)\s*no-store\s*(,|$)/i.test(cacheControl);
}

/** Same path and same JSON (key order aside) hash the same. */
function hashRequest(url: string, body: unknown): string {
  return createHash('sha256').update(url).update('\n').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
