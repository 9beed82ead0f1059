import Type from 'typebox';
import { newId } from '../../../domain/ids.ts';
import { sealSecret } from '../../../domain/secret-box.ts';
import { countWebhookEndpoints, insertWebhook } from '../../../store/webhooks-queries.ts';
import { ALL_EVENTS, webhookEventTypes } from '../../../webhooks/webhook-events.ts';
import { generateWebhookSecret } from '../../../webhooks/webhook-signature.ts';
import { allowsPrivateAddresses, checkOutboundUrl, systemResolver } from '../../../net/outbound-url-guard.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { URL_MAX_LENGTH } from '../../../domain/limits.ts';
import { errorResponses, StringEnum, Success } from '../../schemas.ts';
import { assertWebhookManager } from './webhook-access.ts';
import { webhookView, WebhookWithSecretSchema } from './webhook-view.ts';

/**
 * At most this many endpoints per account: every event is copied once per subscribed endpoint, so the cap bounds
 * an account's fan-out. Svix and Stripe allow a few dozen per account or environment; 20 covers a dashboard, a
 * warehouse and a handful of services. Two concurrent creations at 19 may both pass: a soft cap by design.
 */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

export const WebhookEvents = Type.Array(StringEnum([...webhookEventTypes, ALL_EVENTS]), {
  minItems: 1,
  maxItems: webhookEventTypes.length + 1,
  uniqueItems: true,
  description: 'Event types to receive; ["*"] (the default) = every type, including ones added later.',
  hint: `must list event types from: ${webhookEventTypes.join(', ')}, or be ["*"]`,
});

export function createWebhookEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Register a webhook endpoint (the response shows its signing secret)',
        description:
          'The URL must be http(s) and, unless the operator allows private addresses, resolve only to public ones. The `whsec_` secret is shown here, after a rotation, and by GET /webhooks/{id}/secret.',
        tags: ['webhooks'],
        body: Type.Object(
          {
            url: Type.String({
              minLength: 1,
              maxLength: URL_MAX_LENGTH,
              description: 'Absolute http:// or https:// URL.',
            }),
            events: Type.Optional(WebhookEvents),
            description: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Success(WebhookWithSecretSchema), ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      assertWebhookManager(auth);
      const { url, description } = request.body;
      const events = request.body.events ?? [ALL_EVENTS];
      if (events.includes(ALL_EVENTS) && events.length > 1) {
        throw validationFailed([
          {
            field: 'events',
            message: 'lists "*" (every event) together with other types: send either ["*"] or the types',
          },
        ]);
      }
      const checked = await checkOutboundUrl(url, {
        allowPrivate: allowsPrivateAddresses(deps.config),
        resolve: systemResolver,
      });
      if (!checked.ok) throw validationFailed([{ field: 'url', message: checked.message }]);

      const { db } = deps.store;
      if ((await countWebhookEndpoints(db, auth.accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw new ApiError('conflict', {
          message: `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook endpoints; delete one first.`,
          details: { limit: MAX_WEBHOOKS_PER_ACCOUNT },
        });
      }
      const now = deps.clock.now();
      const id = newId('webhook', now);
      const secret = generateWebhookSecret();
      const endpoint = await insertWebhook(db, {
        id,
        accountId: auth.accountId,
        url: checked.url.href,
        description: description ?? null,
        eventTypes: events,
        sealedSecret: sealSecret(deps.secretKey, secret, id),
        now,
      });
      // The secret must not linger in a browser or proxy cache (nor be kept for an Idempotency-Key replay).
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ success: true, data: { ...webhookView(endpoint, now), secret } });
    },
  );
}
