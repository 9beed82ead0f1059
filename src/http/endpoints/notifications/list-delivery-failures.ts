import Type from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { platforms } from '../../../domain/device-token.ts';
import { listDeliveryFailures } from '../../../store/deliveries-queries.ts';
import { findNotification } from '../../../store/notifications-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { isChannelInScope } from '../../channel-scope.ts';
import { readPageQuery, pageResponse } from '../../pagination.ts';
import { errorResponses, IdParams, PageQuery, StringEnum, SuccessList, Timestamp } from '../../schemas.ts';

const DeliveryFailure = Type.Object(
  {
    subscriberId: Type.String(),
    platform: StringEnum(platforms),
    outcome: StringEnum(['failed', 'skipped'] as const, {
      description:
        "failed: the push went wrong (reason says how); skipped: Clarion did not send it, on purpose (reason says why). Both count in the notification's stats (failed, skipped).",
    }),
    reason: Type.String({
      description:
        'Failed: token_unregistered / token_invalid (the subscriber was unsubscribed), expired, retry_exhausted, a provider reason (e.g. apns:PayloadTooLarge), or a configuration problem (provider_configuration:…). Skipped: silent_not_supported (a silent push to a browser), frequency_capped (the subscriber was at its channel’s frequency cap).',
    }),
    failedAt: Timestamp,
  },
  {
    title: 'DeliveryFailure',
    description: 'A recipient the notification did not reach: a failed push, or one skipped on purpose.',
  },
);

export function listDeliveryFailuresEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "A notification's per-subscriber delivery failures and skips",
        tags: ['notifications'],
        params: IdParams('notification'),
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(DeliveryFailure), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const notification = await findNotification(deps.store.db, auth.accountId, request.params.id);
      if (!notification || !isChannelInScope(auth, notification.channel_code))
        throw new ApiError('not_found', { message: 'No notification with that id.' });
      const paging = readPageQuery(request.query, 'subscriber');
      const rows = await listDeliveryFailures(deps.store.db, {
        notificationId: notification.id,
        after: paging.cursor,
        limit: paging.fetch,
      });
      return pageResponse(
        rows,
        paging,
        (row) => row.subscriber_id,
        (row) => ({
          subscriberId: row.subscriber_id,
          platform: row.platform,
          outcome: row.outcome,
          reason: row.reason,
          failedAt: toIso(row.created_at),
        }),
      );
    },
  );
}
