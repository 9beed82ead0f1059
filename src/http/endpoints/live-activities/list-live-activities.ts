import Type from 'typebox';
import { isId } from '../../../domain/ids.ts';
import { listLiveActivities, liveActivityStatuses } from '../../../store/live-activities-store.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { listableChannelIds } from '../../channel-scope.ts';
import { PAGE_LIMIT_DEFAULT } from '../../../domain/limits.ts';
import { ChannelCode, errorResponses, PageQuery, StringEnum, SuccessList } from '../../schemas.ts';
import { liveActivityView, LiveActivitySchema } from './live-activity-view.ts';

export function listLiveActivitiesHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'List Live Activities, newest first',
        description: 'A scoped key sees only its channels. `status=ended` includes activities past their 8 hours.',
        tags: ['live activities'],
        querystring: Type.Object(
          {
            channelCode: Type.Optional(ChannelCode),
            status: Type.Optional(StringEnum(liveActivityStatuses)),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: SuccessList(LiveActivitySchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { channelCode, status, cursor } = request.query;
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT;
      if (cursor !== undefined && !isId('liveActivity', cursor)) {
        throw validationFailed([{ field: 'cursor', message: 'must be the nextCursor of a previous page' }]);
      }
      const channelIds = await listableChannelIds(deps.store.db, auth, channelCode);
      const now = deps.clock.now();
      const rows = await listLiveActivities(deps.store.db, { accountId: auth.accountId, channelIds, status: status ?? null, before: cursor ?? null, limit: limit + 1, now });
      const page = rows.slice(0, limit);
      return {
        success: true as const,
        data: page.map((row) => liveActivityView(row, now)),
        nextCursor: rows.length > limit ? page[page.length - 1]!.id : null,
      };
    },
  );
}
