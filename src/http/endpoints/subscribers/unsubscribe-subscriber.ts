import { findChannelById } from '../../../store/channels-store.ts';
import { findSubscriber, unsubscribeSubscriber } from '../../../store/subscribers-store.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { isChannelInScope } from '../../channel-scope.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { subscriberView, SubscriberSchema } from './subscriber-view.ts';

export function unsubscribeSubscriberHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Unsubscribe a subscriber (idempotent)',
        description: 'Publishable or secret key. The subscriber stops receiving notifications; `subscriber.unsubscribed` is reported with reason `requested`.',
        tags: ['subscribers'],
        params: IdParams('subscriber'),
        response: { 200: Success(SubscriberSchema), ...errorResponses(400, 401, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const now = deps.clock.now();
      const result = await deps.store.db.transaction().execute(async (trx) => {
        const subscriber = await findSubscriber(trx, auth.accountId, request.params.id);
        const channel = subscriber ? await findChannelById(trx, subscriber.channel_id) : undefined;
        if (!subscriber || !channel || !isChannelInScope(auth, channel.code)) return null;
        await unsubscribeSubscriber(trx, { subscriber, channelCode: channel.code, reason: 'requested', now });
        return { subscriber: (await findSubscriber(trx, auth.accountId, subscriber.id))!, channelCode: channel.code };
      });
      if (!result) throw new ApiError('not_found', { message: 'No subscriber with that id.' });
      return { success: true as const, data: subscriberView(result.subscriber, result.channelCode) };
    },
  );
}
