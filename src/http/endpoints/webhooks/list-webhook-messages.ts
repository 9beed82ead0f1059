import Type from 'typebox';
import { listWebhookAttempts, listWebhookMessages } from '../../../store/webhook-messages-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { readPageQuery, splitPage } from '../../pagination.ts';
import { errorResponses, PageQuery, StringEnum, SuccessList } from '../../schemas.ts';
import { loadWebhook, WebhookIdParams } from './webhook-access.ts';
import { webhookMessageView, WebhookMessageSchema } from './webhook-view.ts';

export function listWebhookMessagesEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "A webhook endpoint's message log, newest first, each message with all its attempts",
        tags: ['webhooks'],
        params: WebhookIdParams,
        querystring: Type.Object(
          { status: Type.Optional(StringEnum(['pending', 'delivered', 'failed'] as const)), ...PageQuery },
          { additionalProperties: false },
        ),
        response: { 200: SuccessList(WebhookMessageSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const endpoint = await loadWebhook(deps, request.auth!, request.params.id);
      const { status } = request.query;
      const paging = readPageQuery(request.query, 'webhookMessage');
      const rows = await listWebhookMessages(deps.store.db, {
        endpointId: endpoint.id,
        status: status ?? null,
        before: paging.cursor,
        limit: paging.fetch,
      });
      const { page, nextCursor } = splitPage(rows, paging, (row) => row.id);
      const attempts = await listWebhookAttempts(
        deps.store.db,
        page.map((message) => message.id),
      );
      return {
        success: true as const,
        data: page.map((message) => webhookMessageView(message, attempts.get(message.id) ?? [])),
        nextCursor,
      };
    },
  );
}
