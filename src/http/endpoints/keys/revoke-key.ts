import { findApiKey, revokeApiKey } from '../../../store/api-keys-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { apiKeyView, ApiKeySchema } from './key-view.ts';

export function revokeKeyEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Revoke an API key: refused from the very next request (dashboard session only)',
        description: 'Idempotent: revoking a revoked key answers 200 with it unchanged. Needs X-CSRF-Token.',
        tags: ['api keys'],
        params: IdParams('apiKey'),
        response: { 200: Success(ApiKeySchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const accountId = request.auth!.accountId;
      const key = await findApiKey(deps.store.db, request.params.id);
      if (!key || key.account_id !== accountId)
        throw new ApiError('not_found', { message: 'No API key with that id in this account.' });
      const now = deps.clock.now();
      const revoked = (await revokeApiKey(deps.store.db, key.id, now))!;
      return { success: true as const, data: apiKeyView(revoked, now) };
    },
  );
}
