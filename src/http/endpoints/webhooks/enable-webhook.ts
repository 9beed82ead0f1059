import { reenableWebhook, type WebhookEndpoint } from '../../../store/webhooks-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { loadWebhook, WebhookIdParams } from './webhook-access.ts';
import { webhookView, WebhookSchema } from './webhook-view.ts';

/**
 * Re-enables an endpoint Clarion disabled (410 Gone, or 5 days of failures) and starts its failure count afresh.
 * Events that happened while it was disabled are not sent; messages that failed can be replayed one by one.
 * Enabling an enabled endpoint changes nothing.
 */
export function enableWebhookEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Re-enable a disabled webhook endpoint',
        tags: ['webhooks'],
        params: WebhookIdParams,
        response: { 200: Success(WebhookSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const endpoint = await loadWebhook(deps, request.auth!, request.params.id);
      const now = deps.clock.now();
      if (endpoint.status === 'enabled') return { success: true as const, data: webhookView(endpoint, now) };
      await reenableWebhook(deps.store.db, endpoint.id, now);
      const enabled: WebhookEndpoint = {
        ...endpoint,
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        updated_at: now,
      };
      return { success: true as const, data: webhookView(enabled, now) };
    },
  );
}
