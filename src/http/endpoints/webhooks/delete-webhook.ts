import Type from 'typebox';
import { removeWebhook } from '../../../store/webhooks-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertWebhookManager, WebhookIdParams } from './webhook-access.ts';

export function deleteWebhookEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Delete a webhook endpoint with its message log; queued attempts are dropped',
        tags: ['webhooks'],
        params: WebhookIdParams,
        response: {
          200: Success(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'DeletedWebhook' })),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const auth = request.auth!;
      assertWebhookManager(auth);
      if (!(await removeWebhook(deps.store.db, auth.accountId, request.params.id))) {
        throw new ApiError('not_found', { message: 'No webhook with that id.' });
      }
      return { success: true as const, data: { id: request.params.id, deleted: true as const } };
    },
  );
}
