import { subscribersWithWidgetPushToken } from '../../../store/widget-push-tokens-queries.ts';
import Type from 'typebox';
import { findChannelById } from '../../../store/channels-queries.ts';
import { findSubscriber, unsubscribeSubscriber } from '../../../store/subscribers-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { isChannelInScope } from '../../channel-scope.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { RegistrationToken } from './registration-token.ts';
import { assertRegisteredWith, requireRegistrationProof } from './subscriber-access.ts';
import { subscriberView, SubscriberSchema } from './subscriber-view.ts';

const notFound = () => new ApiError('not_found', { message: 'No subscriber with that id.' });

export function unsubscribeSubscriberEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      // A bodiless POST (no body, or an empty one with Content-Type: application/json, src/http/app.ts) is `{}`: the
      // schema then checks what a secret key may leave out and a publishable key must send.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
      schema: {
        summary: 'Unsubscribe a subscriber (idempotent)',
        description:
          'Publishable or secret key. A publishable key (inside an app, on a join page) may unsubscribe only the subscriber it registered: it proves that with `token`, the same token it registered (403 without it, 404 with another). The subscriber stops receiving notifications; `subscriber.unsubscribed` is reported with reason `requested`.',
        tags: ['subscribers'],
        params: IdParams('subscriber'),
        body: Type.Object(
          {
            token: Type.Optional(
              RegistrationToken(
                'Required with a publishable key: the device token (or Web Push subscription object) this subscriber registered with.',
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success(SubscriberSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const proof = request.body.token;
      requireRegistrationProof(auth, proof, 'token', 'unsubscribe');
      const now = deps.clock.now();
      const result = await deps.store.db.transaction().execute(async (trx) => {
        const subscriber = await findSubscriber(trx, auth.accountId, request.params.id);
        const channel = subscriber ? await findChannelById(trx, subscriber.channel_id) : undefined;
        if (!subscriber || !channel || !isChannelInScope(auth, channel.code)) return null;
        assertRegisteredWith(auth, subscriber, proof, notFound);
        await unsubscribeSubscriber(trx, { subscriber, channelCode: channel.code, reason: 'requested', now });
        return {
          subscriber: (await findSubscriber(trx, auth.accountId, subscriber.id))!,
          channelCode: channel.code,
          widgetPushEnabled: (await subscribersWithWidgetPushToken(trx, [subscriber.id])).has(subscriber.id),
        };
      });
      if (!result) throw notFound();
      return {
        success: true as const,
        data: subscriberView(result.subscriber, result.channelCode, result.widgetPushEnabled),
      };
    },
  );
}
