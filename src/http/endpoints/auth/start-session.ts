import type { FastifyReply, FastifyRequest } from 'fastify';
import { generateSessionToken } from '../../../domain/session-token.ts';
import { createSession, deleteSession, type SessionRow } from '../../../store/sessions-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { resolveSession } from '../../session-auth.ts';
import { isHttps, sessionCookie } from '../../session-cookie.ts';

/**
 * Signs the browser in: a new random token in the cookie, its hash in the sessions table. A session the browser
 * already had is ended, so a sign-in always starts from a fresh token (no session fixation).
 */
export async function startSession(
  deps: AppDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { userId: string; accountId: string },
): Promise<{ row: SessionRow; token: string }> {
  const previous = await resolveSession(deps, request);
  if (previous) await deleteSession(deps.store.db, previous.row.id);
  const token = generateSessionToken();
  const row = await createSession(deps.store.db, {
    userId: input.userId,
    accountId: input.accountId,
    tokenHash: token.hash,
    now: deps.clock.now(),
  });
  reply.header('set-cookie', sessionCookie(token.value, isHttps(request)));
  // The body carries the CSRF token: no shared cache may keep it.
  reply.header('cache-control', 'no-store');
  return { row, token: token.value };
}
