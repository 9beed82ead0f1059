import { findNotification } from '../../../store/notifications-queries.ts';
import { platformCountsOf } from '../../../store/receipts-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { isChannelInScope } from '../../channel-scope.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { Notification, notificationView } from './notification-view.ts';

export function getNotificationEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Get a notification with its status and delivery stats',
        tags: ['notifications'],
        params: IdParams('notification'),
        response: { 200: Success(Notification), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const row = await findNotification(deps.store.db, auth.accountId, request.params.id);
      // Another account's notification, or one in a channel outside the key's scope, is simply not there.
      if (!row || !isChannelInScope(auth, row.channel_code))
        throw new ApiError('not_found', { message: 'No notification with that id.' });
      const counts = await platformCountsOf(deps.store.db, [row.id]);
      return { success: true as const, data: notificationView(row, counts.get(row.id)) };
    },
  );
}
