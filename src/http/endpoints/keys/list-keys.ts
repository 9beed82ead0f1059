import Type from 'typebox';
import { listApiKeysPage } from '../../../store/api-keys-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { readPageQuery, pageResponse } from '../../pagination.ts';
import { errorResponses, PageQuery, SuccessList } from '../../schemas.ts';
import { apiKeyView, ApiKeySchema } from './key-view.ts';

export function listKeysEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "List the account's API keys, newest first (dashboard session only)",
        description: 'Revoked and expired keys are listed too, with their status. Never shows a full key.',
        tags: ['api keys'],
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(ApiKeySchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const paging = readPageQuery(request.query, 'apiKey');
      const rows = await listApiKeysPage(deps.store.db, {
        accountId: request.auth!.accountId,
        before: paging.cursor,
        limit: paging.fetch,
      });
      const now = deps.clock.now();
      return pageResponse(
        rows,
        paging,
        (row) => row.id,
        (row) => apiKeyView(row, now),
      );
    },
  );
}
