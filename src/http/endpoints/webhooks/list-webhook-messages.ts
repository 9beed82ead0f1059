import Type from 'typebox';
import { isId } from '../../../domain/ids.ts';
import { listWebhookAttempts, listWebhookMessages } from '../../../store/webhook-messages-store.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { PAGE_LIMIT_DEFAULT } from '../../../domain/limits.ts';
import { errorResponses, PageQuery, StringEnum, SuccessList } from '../../schemas.ts';
import { loadWebhook, WebhookIdParams } from './webhook-access.ts';
import { webhookMessageView, WebhookMessageSchema } from './webhook-view.ts';

export function listWebhookMessagesHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "A webhook endpoint's message log, newest first, each message with all its attempts",
        tags: ['webhooks'],
        params: WebhookIdParams,
        querystring: Type.Object({ status: Type.Optional(StringEnum(['pending', 'delivered', 'failed'] as const)), ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(WebhookMessageSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const endpoint = await loadWebhook(deps, request.auth!, request.params.id);
      const { cursor, status } = request.query;
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT;
      if (cursor !== undefined && !isId('webhookMessage', cursor)) {
        throw validationFailed([{ field: 'cursor', message: 'must be the nextCursor of a previous page' }]);
      }
      const rows = await listWebhookMessages(deps.store.db, { endpointId: endpoint.id, status: status ?? null, before: cursor ?? null, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const attempts = await listWebhookAttempts(deps.store.db, page.map((message) => message.id));
      return {
        success: true as const,
        data: page.map((message) => webhookMessageView(message, attempts.get(message.id) ?? [])),
        nextCursor: rows.length > limit ? page[page.length - 1]!.id : null,
      };
    },
  );
}
