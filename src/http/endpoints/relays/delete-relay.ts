import Type from 'typebox';
import { removeRelay } from '../../../store/relays-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertRelayManager } from './relay-access.ts';
import { RelayIdParams } from './relay-view.ts';

/** DELETE /api/v1/relays/{id}: the relay's next webhook gets 401; its activities go on until they end. */
export function deleteRelayEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Delete a relay: its secret stops working at once',
        tags: ['relays'],
        params: RelayIdParams,
        response: {
          200: Success(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'DeletedRelay' })),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const auth = request.auth!;
      assertRelayManager(auth);
      if (!(await removeRelay(deps.store.db, auth.accountId, request.params.id))) {
        throw new ApiError('not_found', { message: 'No relay with that id.' });
      }
      return { success: true as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
