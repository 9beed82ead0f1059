import Type from 'typebox';
import { sealSecret } from '../../../domain/secret-box.ts';
import { findWebhookEndpointById, rotateWebhookSecret } from '../../../store/webhooks-queries.ts';
import { generateWebhookSecret } from '../../../webhooks/webhook-signature.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { loadWebhook, WebhookIdParams } from './webhook-access.ts';
import { webhookView, WebhookWithSecretSchema } from './webhook-view.ts';

/**
 * A day by default, as Svix: time to deploy the new secret to every receiver. Up to 7 days, like API key rotation
 * (docs/design.md 2.2); 0 retires the old secret at once (after a leak).
 */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 60 * 60;
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 60 * 60;

/**
 * Gives the endpoint a new secret. During the grace period every attempt carries two signatures (space-separated,
 * as Standard Webhooks allows): the new secret's first, then the old one's, so receivers verify with either.
 */
export function rotateWebhookSecretEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "Rotate a webhook endpoint's signing secret (the old one keeps signing for a grace period)",
        description: 'Send a JSON object, `{}` for the defaults. The response shows the new secret.',
        tags: ['webhooks'],
        params: WebhookIdParams,
        body: Type.Object(
          {
            graceSeconds: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: MAX_ROTATION_GRACE_SECONDS,
                description: `How long the old secret keeps signing beside the new one; default ${DEFAULT_ROTATION_GRACE_SECONDS} (24 hours), 0 = stop at once.`,
                hint: `must be a whole number of seconds from 0 to ${MAX_ROTATION_GRACE_SECONDS} (7 days)`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success(WebhookWithSecretSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const endpoint = await loadWebhook(deps, request.auth!, request.params.id);
      const now = deps.clock.now();
      const grace = request.body.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
      const secret = generateWebhookSecret();
      await rotateWebhookSecret(deps.store.db, {
        endpoint,
        sealedSecret: sealSecret(deps.secretKey, secret, endpoint.id),
        previousExpiresAt: grace === 0 ? null : now + grace * 1000,
        now,
      });
      const rotated = (await findWebhookEndpointById(deps.store.db, endpoint.id)) ?? endpoint;
      // The new secret must not linger in a cache (nor be kept for an Idempotency-Key replay).
      reply.header('cache-control', 'no-store');
      return { success: true as const, data: { ...webhookView(rotated, now), secret } };
    },
  );
}
