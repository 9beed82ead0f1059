import Type from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { platforms } from '../../../domain/device-token.ts';
import {
  latestLiveActivityEvents,
  listLiveActivityFailures,
} from '../../../store/live-activities/live-activity-delivery-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { pageResponse, readPageQuery } from '../../pagination.ts';
import { errorResponses, IdParams, PageQuery, StringEnum, SuccessList, Timestamp } from '../../schemas.ts';
import { findVisibleLiveActivity } from './live-activity-access.ts';

const LiveActivityFailure = Type.Object(
  {
    subscriberId: Type.String(),
    platform: StringEnum(platforms),
    event: StringEnum(['start', 'update', 'end'] as const),
    reason: Type.String({
      description:
        'token_unregistered / token_invalid (an iOS token is dropped, an Android or web subscriber unsubscribed), retry_exhausted, attempts_exhausted, a provider reason (e.g. apns:PayloadTooLarge), or a configuration problem (provider_configuration:…).',
    }),
    failedAt: Timestamp,
  },
  {
    title: 'LiveActivityFailure',
    description: "A device the activity's latest event did not reach.",
  },
);

/**
 * GET /api/v1/live-activities/{id}/failures: the devices the latest start, update or end failed to reach for good, and
 * why — what `lastEvent.failed` counts per device (docs/live-activities.md, "Delivery stats"). A failed broadcast is
 * one request, not a device: its reason is `lastEvent.byMode.broadcast.failureReason`.
 */
export function listLiveActivityFailuresEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "The devices a Live Activity's latest event failed to reach",
        tags: ['live activities'],
        params: IdParams('liveActivity'),
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(LiveActivityFailure), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const activity = await findVisibleLiveActivity(deps, request.auth!, request.params.id);
      const paging = readPageQuery(request.query, 'subscriber');
      const latest = (await latestLiveActivityEvents(deps.store.db, [activity.id])).get(activity.id);
      const rows = latest
        ? await listLiveActivityFailures(deps.store.db, {
            liveActivityId: activity.id,
            timestamp: latest.timestamp,
            after: paging.cursor,
            limit: paging.fetch,
          })
        : [];
      return pageResponse(
        rows,
        paging,
        (row) => row.subscriber_id,
        (row) => ({
          subscriberId: row.subscriber_id,
          platform: row.platform,
          event: latest!.event,
          reason: row.reason,
          failedAt: toIso(row.created_at),
        }),
      );
    },
  );
}
