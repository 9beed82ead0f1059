import Type from 'typebox';
import { isId } from '../../../domain/ids.ts';
import { listWebhookEndpoints } from '../../../store/webhooks-store.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { PAGE_LIMIT_DEFAULT } from '../../../domain/limits.ts';
import { errorResponses, PageQuery, SuccessList } from '../../schemas.ts';
import { assertWebhookManager } from './webhook-access.ts';
import { webhookView, WebhookSchema } from './webhook-view.ts';

export function listWebhooksHandler(deps: AppDependencies): Endpoint {
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
      const { cursor } = request.query;
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT;
      if (cursor !== undefined && !isId('webhook', cursor)) {
        throw validationFailed([{ field: 'cursor', message: 'must be the nextCursor of a previous page' }]);
      }
      const rows = await listWebhookEndpoints(deps.store.db, { accountId: auth.accountId, after: cursor ?? null, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const now = deps.clock.now();
      return {
        success: true as const,
        data: page.map((endpoint) => webhookView(endpoint, now)),
        nextCursor: rows.length > limit ? page[page.length - 1]!.id : null,
      };
    },
  );
}
