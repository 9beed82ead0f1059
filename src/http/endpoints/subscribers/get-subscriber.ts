import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { loadSubscriber, subscriberWithFailures } from './subscriber-access.ts';
import { SubscriberWithFailuresSchema } from './subscriber-detail-view.ts';

export function getSubscriberEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Get a subscriber with its details, last delivery and recent failures',
        description: 'Secret key. Never shows the device token beyond a short prefix.',
        tags: ['subscribers'],
        params: IdParams('subscriber'),
        response: { 200: Success(SubscriberWithFailuresSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { subscriber, channelCode } = await loadSubscriber(deps.store.db, request.auth!, request.params.id);
      return { success: true as const, data: await subscriberWithFailures(deps.store.db, subscriber, channelCode) };
    },
  );
}
