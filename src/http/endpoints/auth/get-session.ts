import { touchSession } from '../../../store/sessions-store.ts';
import type { AppDependencies, ClarionApp } from '../../app-types.ts';
import { Success } from '../../schemas.ts';
import { hasSessionCookie, resolveSession } from '../../session-auth.ts';
import { clearedSessionCookie, isHttps } from '../../session-cookie.ts';
import { sessionState, SessionState } from './session-view.ts';

export function registerGetSession(app: ClarionApp, deps: AppDependencies): void {
  app.get(
    '/api/v1/auth/session',
    {
      // Public on purpose: "not signed in" is an answer here (session: null), not an error, and the dashboard's
      // first request learns from it whether to offer sign-up.
      config: { auth: 'none' },
      schema: {
        summary: "This browser's dashboard session, with its CSRF token (session: null when signed out)",
        tags: ['dashboard'],
        security: [],
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
