import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { loadWebhook, WebhookIdParams } from './webhook-access.ts';
import { webhookView, WebhookSchema } from './webhook-view.ts';

export function getWebhookEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Get a webhook endpoint, with why it was disabled if it was (the secret: GET /webhooks/{id}/secret)',
        tags: ['webhooks'],
        params: WebhookIdParams,
        response: { 200: Success(WebhookSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const endpoint = await loadWebhook(deps, request.auth!, request.params.id);
      return { success: true as const, data: webhookView(endpoint, deps.clock.now()) };
    },
  );
}
