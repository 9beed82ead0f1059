import Type from 'typebox';
import { listApps } from '../../../store/apps-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { pageResponse, readPageQuery } from '../../pagination.ts';
import { errorResponses, PageQuery, SuccessList } from '../../schemas.ts';
import { assertAppManager } from './app-access.ts';
import { appView, AppSchema } from './app-view.ts';

export function listAppsEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "List the account's apps (fingerprints only)",
        tags: ['apps'],
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(AppSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      assertAppManager(auth);
      const paging = readPageQuery(request.query, 'app');
      const rows = await listApps(deps.store.db, {
        accountId: auth.accountId,
        after: paging.cursor,
        limit: paging.fetch,
      });
      return pageResponse(rows, paging, (row) => row.id, appView);
    },
  );
}
