import { effectiveStatus } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import { findLiveActivity, type LiveActivityRow } from '../../../store/live-activities/live-activities-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { isChannelInScope } from '../../channel-scope.ts';

/**
 * The activity a key may see: in its account and, for a scoped key, in one of its channels. Anything else is 404
 * like an id that does not exist, so a key learns nothing about activities outside its reach (docs/api.md, Keys).
 */
export async function findVisibleLiveActivity(
  deps: AppDependencies,
  auth: AuthContext,
  id: string,
): Promise<LiveActivityRow> {
  const row = await findLiveActivity(deps.store.db, auth.accountId, id);
  if (!row || !isChannelInScope(auth, row.channel_code))
    throw new ApiError('not_found', { message: 'No Live Activity with that id.' });
  return row;
}

/**
 * 409 activity_ended, saying when: at the caller's end, or at start + 8 hours (live-activity-lifecycle.ts); for one
 * canceled before it started, that it was (endedAt null).
 */
export function activityEnded(row: LiveActivityRow, now: number): ApiError {
  const { status, endedAt } = effectiveStatus(row, now);
  if (status === 'canceled')
    return new ApiError('activity_ended', {
      message: 'This Live Activity was canceled before it started; start a new one.',
      details: { liveActivityId: row.id, endedAt: null, status },
    });
  return new ApiError('activity_ended', {
    details: { liveActivityId: row.id, endedAt: endedAt === null ? null : new Date(endedAt).toISOString() },
  });
}

/** 409 activity_not_started: a scheduled activity has nothing to end or report a token for; the caller cancels it. */
export function activityNotStarted(row: LiveActivityRow): ApiError {
  return new ApiError('activity_not_started', {
    message: `This Live Activity is scheduled for ${new Date(row.send_at!).toISOString()} and has not started, so there is nothing to end: cancel it with POST /api/v1/live-activities/${row.id}/cancel.`,
    details: { liveActivityId: row.id, sendAt: new Date(row.send_at!).toISOString() },
  });
}
