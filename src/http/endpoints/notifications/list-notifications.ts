import Type from 'typebox';
import { listNotifications, notificationStatuses } from '../../../store/notifications-store.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { listableChannelIds } from '../../channel-scope.ts';
import { readPageQuery, splitPage } from '../../pagination.ts';
import { ChannelCode, errorResponses, PageQuery, StringEnum, SuccessList } from '../../schemas.ts';
import { Notification, notificationView } from './notification-view.ts';

export function listNotificationsHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'List notifications, newest first',
        tags: ['notifications'],
        querystring: Type.Object(
          {
            channelCode: Type.Optional(ChannelCode),
            status: Type.Optional(StringEnum(notificationStatuses)),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: SuccessList(Notification), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { channelCode, status } = request.query;
      const paging = readPageQuery(request.query, 'notification');
      const channelIds = await listableChannelIds(deps.store.db, auth, channelCode);
      const rows = await listNotifications(deps.store.db, {
        accountId: auth.accountId,
        channelIds,
        status: status ?? null,
        before: paging.cursor,
        limit: paging.fetch,
      });
      const { page, nextCursor } = splitPage(rows, paging, (row) => row.id);
      return {
        success: true as const,
        data: page.map(notificationView),
        nextCursor,
      };
    },
  );
}
