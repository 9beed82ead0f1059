import type { Kysely } from 'kysely';
import { liveActivityExpiresAt } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { JobQueue } from '../../queue/job-queue.ts';
import { JobRetryError } from '../../queue/job-types.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import { expireLiveActivity, findLiveActivityById } from '../../store/live-activities/live-activities-queries.ts';
import type { Database } from '../../store/schema.ts';
import type { DeliveryDependencies } from '../dispatch-job.ts';
import { enqueueLiveActivityPush, expireLiveActivityJob, scheduleChannelDeletion } from './live-activity-jobs.ts';
import { liveActivityPushOf, recordLiveActivityChange } from './live-activity-snapshot.ts';

/**
 * The 8-hour end. iOS ends every Live Activity 8 hours after its start (docs/protocols.md 2.3); this job, enqueued with the
 * start to run at that moment, records the same in Clarion: status `ended` (ended_at = start + 8 h), one
 * `live_activity.ended` event with reason `expired`, and an `end` for Android and the web, whose notification
 * nothing else would update. iOS gets no push: the system has ended the activity itself, and its tokens now answer 410.
 * Reads do not wait for this job (live-activity-lifecycle.ts effectiveStatus), and it does nothing to an activity
 * the caller ended first. No quota is charged: the caller did not ask for it.
 */
export function expireLiveActivityHandler(deps: DeliveryDependencies): JobHandler {
  return expireLiveActivityJob.handler(async ({ liveActivityId }, job, { owner }) => {
    const { db } = deps.store;
    const activity = await findLiveActivityById(db, liveActivityId);
    if (!activity || activity.status !== 'active' || activity.started_at === null) return;
    const expiresAt = liveActivityExpiresAt(activity.started_at);
    // Claimed early (another node's clock ahead of this one's): come back when it is due.
    if (deps.clock.now() < expiresAt)
      throw new JobRetryError('the activity has not reached its 8 hours yet', expiresAt - deps.clock.now());
    await db.transaction().execute(async (trx) => {
      if (await recordExpiry(trx, deps.queue, liveActivityId, deps.clock.now()))
        deps.logger.info({ liveActivityId }, 'live activity reached its 8 hours and ended');
      await deps.queue.complete(trx, job, owner);
    });
  });
}

/**
 * Records in `trx` the 8-hour end of an activity past it, once (false when it was ended already): the row, the
 * `live_activity.ended` event, the end for Android and the web, and its APNs channel's deletion. The expiry job runs
 * it at the 8 hours; a stream's next call runs it first when it finds its activity past them unrecorded.
 */
export async function recordExpiry(
  trx: Kysely<Database>,
  queue: JobQueue,
  liveActivityId: string,
  now: number,
): Promise<boolean> {
  const ended = await expireLiveActivity(trx, { id: liveActivityId, now });
  if (!ended) return false;
  await recordLiveActivityChange(trx, ended, { type: 'ended', reason: 'expired' }, now);
  await enqueueLiveActivityPush(trx, queue, liveActivityPushOf(ended, 'end', null), ['android', 'web']);
  // The system ended every activity on the channel; nothing will be sent on it again.
  if (ended.apns_channel_id) await scheduleChannelDeletion(trx, queue, ended.apns_channel_id);
  return true;
}
