import { listLiveActivities, liveActivityStatuses } from '../../../store/live-activities/live-activities-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelListQuery, readChannelListQuery } from '../../channel-list-query.ts';
import { splitPage } from '../../pagination.ts';
import { errorResponses, SuccessList } from '../../schemas.ts';
import { liveActivityViews, LiveActivitySchema } from './live-activity-view.ts';

export function listLiveActivitiesEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'List Live Activities, newest first',
        description: 'A scoped key sees only its channels. `status=ended` includes activities past their 8 hours.',
        tags: ['live activities'],
        querystring: ChannelListQuery(liveActivityStatuses),
        response: { 200: SuccessList(LiveActivitySchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { channelIds, status, paging } = await readChannelListQuery(
        deps.store.db,
        auth,
        request.query,
        'liveActivity',
      );
      const now = deps.clock.now();
      const rows = await listLiveActivities(deps.store.db, {
        accountId: auth.accountId,
        channelIds,
        status,
        before: paging.cursor,
        limit: paging.fetch,
        now,
      });
      const { page, nextCursor } = splitPage(rows, paging, (row) => row.id);
      return { success: true as const, data: await liveActivityViews(deps.store.db, page, now), nextCursor };
    },
  );
}
