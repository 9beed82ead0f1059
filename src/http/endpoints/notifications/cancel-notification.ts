import { DISPATCH_NOTIFICATION } from '../../../delivery/job-kinds.ts';
import { usagePeriod } from '../../../domain/plans.ts';
import { fixTargetedCount } from '../../../store/deliveries-queries.ts';
import { findNotification } from '../../../store/notifications-queries.ts';
import { refundQuota } from '../../../store/usage-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { isChannelInScope } from '../../channel-scope.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { Notification, notificationView } from './notification-view.ts';

/**
 * Cancels what has not been sent yet: a scheduled notification entirely (its quota unit is refunded), or the time
 * zones of a local-time notification that are still waiting (the zones already under way finish; nothing is
 * refunded, since the notification was sent in part). Dispatch jobs still waiting are deleted in the same
 * transaction; one a worker has already claimed is under way and cannot be stopped.
 */
export function cancelNotificationEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Cancel a scheduled notification (or the zones of a local-time one not yet sent)',
        tags: ['notifications'],
        params: IdParams('notification'),
        response: { 200: Success(Notification), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const found = await findNotification(deps.store.db, auth.accountId, request.params.id);
      if (!found || !isChannelInScope(auth, found.channel_code))
        throw new ApiError('not_found', { message: 'No notification with that id.' });
      const row = await deps.store.db.transaction().execute(async (trx) => {
        const now = deps.clock.now();
        // Lock the notification first (the delivery engine's lock order), then read it as it is now.
        await trx.updateTable('notifications').set({ updated_at: now }).where('id', '=', found.id).execute();
        const current = (await findNotification(trx, auth.accountId, found.id))!;
        if (current.status !== 'scheduled' && current.status !== 'sending') throw notCancelable(current.status);
        // The notification's dispatch jobs, by their unique keys "dispatch:<id>:<zone>" (a range the index serves).
        const dispatches = await trx
          .selectFrom('jobs')
          .select(['id', 'state'])
          .where('kind', '=', DISPATCH_NOTIFICATION)
          .where('unique_key', '>=', `dispatch:${current.id}:`)
          .where('unique_key', '<', `dispatch:${current.id};`)
          .execute();
        const waiting = dispatches.filter((job) => job.state === 'available');
        if (waiting.length === 0) throw notCancelable(current.status);
        // Refund only what was never started: a claimed dispatch may already be pushing, even before it says so.
        const started = dispatches.length > waiting.length;
        await trx
          .deleteFrom('jobs')
          .where(
            'id',
            'in',
            waiting.map((job) => job.id),
          )
          .where('state', '=', 'available')
          .execute();
        const pending = current.dispatches_pending - waiting.length;
        await trx
          .updateTable('notifications')
          .set({ status: 'canceled', canceled_at: now, dispatches_pending: pending, updated_at: now })
          .where('id', '=', current.id)
          .execute();
        if (!started) {
          await refundQuota(trx, { accountId: auth.accountId, period: usagePeriod(current.created_at).key });
        }
        if (pending === 0) await fixTargetedCount(trx, current.id, now);
        return (await findNotification(trx, auth.accountId, current.id))!;
      });
      return { success: true as const, data: notificationView(row) };
    },
  );
}

function notCancelable(status: string): ApiError {
  return new ApiError('not_cancelable', {
    message:
      status === 'canceled'
        ? 'This notification is already canceled.'
        : `Nothing is left to cancel: the notification is ${status}.`,
    details: { status },
  });
}
