import { unsubscribeSubscriber } from '../../../store/subscribers-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { loadSubscriber, subscriberDetail } from './subscriber-access.ts';
import { SubscriberDetailSchema } from './subscriber-detail-view.ts';

/**
 * DELETE /subscribers/{id}: the server-side twin of POST /subscribers/{id}/unsubscribe (same effect, same
 * `subscriber.unsubscribed` event with reason `requested`, idempotent). The row is kept, so the subscriber's history
 * still adds up; DELETE /users/{externalId} is the erasure that removes rows.
 */
export function deleteSubscriberEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Unsubscribe a subscriber (idempotent)',
        description:
          'Secret key. The same as POST /subscribers/{id}/unsubscribe: the subscriber stops receiving notifications and `subscriber.unsubscribed` is reported with reason `requested`.',
        tags: ['subscribers'],
        params: IdParams('subscriber'),
        response: { 200: Success(SubscriberDetailSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const now = deps.clock.now();
      const { subscriber, channelCode } = await deps.store.db.transaction().execute(async (trx) => {
        const found = await loadSubscriber(trx, auth, request.params.id);
        await unsubscribeSubscriber(trx, {
          subscriber: found.subscriber,
          channelCode: found.channelCode,
          reason: 'requested',
          now,
        });
        return loadSubscriber(trx, auth, request.params.id);
      });
      return { success: true as const, data: await subscriberDetail(deps.store.db, subscriber, channelCode) };
    },
  );
}
