import { newId } from '../../../domain/ids.ts';
import { insertWebhookMessages } from '../../../store/webhook-messages-queries.ts';
import { TEST_EVENT_TYPE, webhookBody } from '../../../webhooks/webhook-events.ts';
import { enqueueWebhookAttempt } from '../../../webhooks/webhook-jobs.ts';
import { firstAttemptDelay } from '../../../webhooks/webhook-retry-policy.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertEnabled, loadWebhook, WebhookIdParams } from './webhook-access.ts';
import { webhookMessageView, WebhookMessageSchema } from './webhook-view.ts';

/**
 * Sends a `webhook.test` message through the normal pipeline: stored, queued, signed, retried on the schedule and
 * logged like any other. It goes to this endpoint only, whatever event types it subscribes to.
 */
export function testWebhookEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Send a webhook.test message to this endpoint (answers 202 with the queued message)',
        tags: ['webhooks'],
        params: WebhookIdParams,
        response: { 202: Success(WebhookMessageSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const endpoint = await loadWebhook(deps, request.auth!, request.params.id);
      assertEnabled(endpoint);
      const now = deps.clock.now();
      const runAt = now + firstAttemptDelay(deps.config.webhookRetrySchedule);
      const message = {
        id: newId('webhookMessage', now),
        account_id: endpoint.account_id,
        endpoint_id: endpoint.id,
        event_id: null,
        event_type: TEST_EVENT_TYPE,
        payload: webhookBody(TEST_EVENT_TYPE, now, {
          webhookId: endpoint.id,
          message: 'This is a test message from Clarion. Verify its signature, then answer 2xx.',
        }),
        status: 'pending' as const,
        attempt_count: 0,
        next_attempt_at: runAt,
        delivered_at: null,
        created_at: now,
        updated_at: now,
      };
      await deps.store.db.transaction().execute(async (trx) => {
        await insertWebhookMessages(trx, [message]);
        await enqueueWebhookAttempt(deps.queue, trx, { messageId: message.id, attempt: 1, runAt });
      });
      return reply.code(202).send({ success: true, data: webhookMessageView(message, []) });
    },
  );
}
