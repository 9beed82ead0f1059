import Type from 'typebox';
import { setSessionAccount } from '../../../store/sessions-queries.ts';
import { listUserAccounts } from '../../../store/users-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { resolveSession } from '../../session-auth.ts';
import { sessionState, SessionState } from './session-view.ts';

export function switchAccountEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Make another of your accounts the one this dashboard session acts for',
        description: 'Only accounts the signed-in user belongs to; any other id answers 404. Needs X-CSRF-Token.',
        tags: ['dashboard'],
        body: Type.Object(
          { accountId: Type.String({ minLength: 1, maxLength: 64, description: 'acc_… identifier.' }) },
          { additionalProperties: false },
        ),
        response: { 200: Success(SessionState), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { id, userId } = request.auth!.session!;
      const accounts = await listUserAccounts(deps.store.db, userId);
      // Another user's account answers exactly like one that does not exist.
      if (!accounts.some((account) => account.accountId === request.body.accountId)) {
        throw new ApiError('not_found', { message: 'You are not a member of an account with that id.' });
      }
      await setSessionAccount(deps.store.db, id, request.body.accountId);
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: await sessionState(deps, await resolveSession(deps, request)) };
    },
  );
}
