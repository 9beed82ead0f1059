import Type from 'typebox';
import { listWebhookEndpoints } from '../../../store/webhooks-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { readPageQuery, pageResponse } from '../../pagination.ts';
import { errorResponses, PageQuery, SuccessList } from '../../schemas.ts';
import { assertWebhookManager } from './webhook-access.ts';
import { webhookView, WebhookSchema } from './webhook-view.ts';

export function listWebhooksEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "List the account's webhook endpoints (secrets are not listed)",
        tags: ['webhooks'],
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(WebhookSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      assertWebhookManager(auth);
      const paging = readPageQuery(request.query, 'webhook');
      const rows = await listWebhookEndpoints(deps.store.db, {
        accountId: auth.accountId,
        after: paging.cursor,
        limit: paging.fetch,
      });
      const now = deps.clock.now();
      return pageResponse(
        rows,
        paging,
        (row) => row.id,
        (endpoint) => webhookView(endpoint, now),
      );
    },
  );
}
