import { touchSession } from '../../../store/sessions-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { Success } from '../../schemas.ts';
import { hasSessionCookie, resolveSession } from '../../session-auth.ts';
import { clearedSessionCookie, isHttps } from '../../session-cookie.ts';
import { sessionState, SessionState } from './session-view.ts';

export function getSessionEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "This browser's dashboard session, with its CSRF token (session: null when signed out)",
        tags: ['dashboard'],
        response: { 200: Success(SessionState) },
      },
    },
    async (request, reply) => {
      const session = await resolveSession(deps, request);
      reply.header('cache-control', 'no-store');
      if (session) await touchSession(deps.store.db, session.row, deps.clock.now());
      else if (hasSessionCookie(request)) reply.header('set-cookie', clearedSessionCookie(isHttps(request)));
      return { success: true as const, data: await sessionState(deps, session) };
    },
  );
}
