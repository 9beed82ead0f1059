import { openSecret } from '../../../domain/secret-box.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { loadWebhook, WebhookIdParams } from './webhook-access.ts';
import { webhookView, WebhookSecretSchema } from './webhook-view.ts';

/**
 * The signing secret on its own route (as Svix does): reading or listing endpoints never carries it, so logs,
 * dashboards and scripts that show endpoints do not spread it; fetching it is a deliberate call.
 */
export function getWebhookSecretEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "Get a webhook endpoint's current signing secret",
        tags: ['webhooks'],
        params: WebhookIdParams,
        response: { 200: Success(WebhookSecretSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const endpoint = await loadWebhook(deps, request.auth!, request.params.id);
      const view = webhookView(endpoint, deps.clock.now());
      // The secret must not linger in a browser or proxy cache.
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        data: {
          webhookId: endpoint.id,
          secret: openSecret(deps.secretKey, endpoint.secret, endpoint.id),
          previousSecretExpiresAt: view.previousSecretExpiresAt,
        },
      };
    },
  );
}
