import Type from 'typebox';
import { isId } from '../../../domain/ids.ts';
import { listNotifications, notificationStatuses } from '../../../store/notifications-store.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { listableChannelIds } from '../../channel-scope.ts';
import { PAGE_LIMIT_DEFAULT } from '../../../domain/limits.ts';
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
      const { channelCode, status, cursor } = request.query;
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT;
      if (cursor !== undefined && !isId('notification', cursor)) {
        throw validationFailed([{ field: 'cursor', message: 'must be the nextCursor of a previous page' }]);
      }
      const channelIds = await listableChannelIds(deps.store.db, auth, channelCode);
      const rows = await listNotifications(deps.store.db, {
        accountId: auth.accountId,
        channelIds,
        status: status ?? null,
        before: cursor ?? null,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        success: true as const,
        data: page.map(notificationView),
        nextCursor: rows.length > limit ? page[page.length - 1]!.id : null,
      };
    },
  );
}
