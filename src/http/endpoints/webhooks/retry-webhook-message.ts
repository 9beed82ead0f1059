import { findWebhookMessage, listWebhookAttempts, markReplayQueued } from '../../../store/webhook-messages-queries.ts';
import { findWebhookEndpointById } from '../../../store/webhooks-queries.ts';
import { enqueueWebhookAttempt } from '../../../webhooks/webhook-jobs.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { assertEnabled, assertWebhookManager } from './webhook-access.ts';
import { webhookMessageView, WebhookMessageSchema } from './webhook-view.ts';

/**
 * Replays a message now: one extra attempt with the same webhook-id and body (receivers dedupe on the id), signed
 * afresh. Allowed whatever the message's status; a retry schedule still running carries on if the replay fails.
 */
export function retryWebhookMessageEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Replay a webhook message now (answers 202 with the message; the attempt shows in its log)',
        tags: ['webhooks'],
        params: IdParams('webhookMessage'),
        response: { 202: Success(WebhookMessageSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      assertWebhookManager(auth);
      const { db } = deps.store;
      const message = await findWebhookMessage(db, auth.accountId, request.params.id);
      const endpoint = message ? await findWebhookEndpointById(db, message.endpoint_id) : undefined;
      if (!message || !endpoint) throw new ApiError('not_found', { message: 'No webhook message with that id.' });
      assertEnabled(endpoint);
      const now = deps.clock.now();
      await db.transaction().execute(async (trx) => {
        await markReplayQueued(trx, message.id, now);
        await enqueueWebhookAttempt(deps.queue, trx, { messageId: message.id, attempt: null, runAt: now });
      });
      const attempts = await listWebhookAttempts(db, [message.id]);
      return reply.code(202).send({
        success: true,
        data: webhookMessageView({ ...message, status: 'pending', updated_at: now }, attempts.get(message.id) ?? []),
      });
    },
  );
}
