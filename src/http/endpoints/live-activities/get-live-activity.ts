import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { findVisibleLiveActivity } from './live-activity-access.ts';
import { oneLiveActivityView, LiveActivitySchema } from './live-activity-view.ts';

export function getLiveActivityEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Get a Live Activity with its current fields and status',
        tags: ['live activities'],
        params: IdParams('liveActivity'),
        response: { 200: Success(LiveActivitySchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      // Another account's activity, or one in a channel outside the key's scope, is simply not there.
      const row = await findVisibleLiveActivity(deps, request.auth!, request.params.id);
      return { success: true as const, data: await oneLiveActivityView(deps.store.db, row, deps.clock.now()) };
    },
  );
}
