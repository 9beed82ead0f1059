import { listNotifications, notificationStatuses } from '../../../store/notifications-queries.ts';
import { platformCountsOf } from '../../../store/receipts-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelListQuery, readChannelListQuery } from '../../channel-list-query.ts';
import { pageResponse } from '../../pagination.ts';
import { errorResponses, SuccessList } from '../../schemas.ts';
import { Notification, notificationView } from './notification-view.ts';

export function listNotificationsEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'List notifications, newest first',
        tags: ['notifications'],
        querystring: ChannelListQuery(notificationStatuses),
        response: { 200: SuccessList(Notification), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { channelIds, status, paging } = await readChannelListQuery(
        deps.store.db,
        auth,
        request.query,
        'notification',
      );
      const rows = await listNotifications(deps.store.db, {
        accountId: auth.accountId,
        channelIds,
        status,
        before: paging.cursor,
        limit: paging.fetch,
      });
      const counts = await platformCountsOf(
        deps.store.db,
        rows.map((row) => row.id),
      );
      return pageResponse(
        rows,
        paging,
        (row) => row.id,
        (row) => notificationView(row, counts.get(row.id)),
      );
    },
  );
}
