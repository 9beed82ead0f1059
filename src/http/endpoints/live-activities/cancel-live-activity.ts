import { startJobKey, START_LIVE_ACTIVITY } from '../../../delivery/live-activities/live-activity-jobs.ts';
import { usagePeriod } from '../../../domain/plans.ts';
import { effectiveStatus } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import {
  cancelScheduledLiveActivity,
  findLiveActivity,
} from '../../../store/live-activities/live-activities-queries.ts';
import { refundQuota } from '../../../store/usage-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { findVisibleLiveActivity } from './live-activity-access.ts';
import { LiveActivitySchema, oneLiveActivityView } from './live-activity-view.ts';

/**
 * POST /api/v1/live-activities/{id}/cancel (docs/live-activities.md, "Scheduled starts"): a scheduled activity never
 * starts. In ONE transaction: the activity becomes `canceled` (only while still `scheduled`, so the start job and the
 * cancel cannot both win: live-activities-queries.ts), its start job is deleted unless a worker holds it (that worker
 * then finds it canceled and pushes nothing), its stream key is free again, and the quota unit charged when it was
 * accepted is refunded, as a canceled scheduled notification's is (cancel-notification.ts): nothing was sent.
 */
export function cancelLiveActivityEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Cancel a scheduled Live Activity',
        description:
          'Only a `scheduled` activity (started with `sendAt`, not yet started) can be canceled: it becomes `canceled`, nothing is ever pushed for it, its stream key is free for a new start, and the quota unit of its start is refunded. 409 `not_cancelable` once it started, ended or was canceled.',
        tags: ['live activities'],
        params: IdParams('liveActivity'),
        response: { 200: Success(LiveActivitySchema), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const existing = await findVisibleLiveActivity(deps, auth, request.params.id);
      const row = await deps.store.db.transaction().execute(async (trx) => {
        const now = deps.clock.now();
        const canceled = await cancelScheduledLiveActivity(trx, { accountId: auth.accountId, id: existing.id, now });
        if (!canceled) {
          const current = (await findLiveActivity(trx, auth.accountId, existing.id))!;
          throw notCancelable(effectiveStatus(current, now).status);
        }
        await trx
          .deleteFrom('jobs')
          .where('kind', '=', START_LIVE_ACTIVITY)
          .where('unique_key', '=', startJobKey(canceled.id))
          .where('state', '=', 'available')
          .execute();
        await refundQuota(trx, { accountId: auth.accountId, period: usagePeriod(canceled.created_at).key });
        return canceled;
      });
      return { success: true as const, data: await oneLiveActivityView(deps.store.db, row, deps.clock.now()) };
    },
  );
}

const notCancelableMessages: Record<string, string> = {
  canceled: 'This Live Activity is already canceled.',
  active:
    'This Live Activity has started, so it can no longer be canceled: end it with POST /api/v1/live-activities/{id}/end.',
  ended: 'This Live Activity has ended; only a scheduled one can be canceled.',
};

function notCancelable(status: string): ApiError {
  return new ApiError('not_cancelable', { message: notCancelableMessages[status], details: { status } });
}
