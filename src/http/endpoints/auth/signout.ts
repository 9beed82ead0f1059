import { deleteSession } from '../../../store/sessions-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { clearedSessionCookie, isHttps } from '../../session-cookie.ts';
import { sessionState, SessionState } from './session-view.ts';

export function signoutEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Sign out: end this dashboard session',
        description:
          'Deletes the session, so its cookie is refused from the next request on, and clears the cookie. Needs X-CSRF-Token.',
        tags: ['dashboard'],
        response: { 200: Success(SessionState), ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      await deleteSession(deps.store.db, request.auth!.session!.id);
      reply.header('set-cookie', clearedSessionCookie(isHttps(request))).header('cache-control', 'no-store');
      return { success: true as const, data: await sessionState(deps, null) };
    },
  );
}
