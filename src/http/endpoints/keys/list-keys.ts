import Type from 'typebox';
import { isId } from '../../../domain/ids.ts';
import { listApiKeysPage } from '../../../store/api-keys-store.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { PAGE_LIMIT_DEFAULT } from '../../../domain/limits.ts';
import { errorResponses, PageQuery, SuccessList } from '../../schemas.ts';
import { apiKeyView, ApiKeySchema } from './key-view.ts';

export function listKeysHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "List the account's API keys, newest first (dashboard session only)",
        description: 'Revoked and expired keys are listed too, with their status. Never shows a full key.',
        tags: ['api keys'],
        security: [{ session: [] }],
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(ApiKeySchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { cursor } = request.query;
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT;
      if (cursor !== undefined && !isId('apiKey', cursor)) throw validationFailed([{ field: 'cursor', message: 'must be the nextCursor of a previous page' }]);
      const rows = await listApiKeysPage(deps.store.db, { accountId: request.auth!.accountId, before: cursor ?? null, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const now = deps.clock.now();
      return {
        success: true as const,
        data: page.map((row) => apiKeyView(row, now)),
        nextCursor: rows.length > limit ? page[page.length - 1]!.id : null,
      };
    },
  );
}
