import { effectiveStatus } from '../../domain/live-activities/live-activity-lifecycle.ts';
import {
  mergeTemplateFields,
  statusLineField,
  validateTemplateFields,
  type TemplateFields,
  type TemplateName,
} from '../../domain/live-activities/live-activity-templates.ts';
import { JobRetryError } from '../../queue/job-types.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import { endInactiveLiveActivity, findLiveActivityById } from '../../store/live-activities/live-activities-queries.ts';
import type { DeliveryDependencies } from '../dispatch-job.ts';
import { autoEndLiveActivityJob, enqueueLiveActivityPush } from './live-activity-jobs.ts';
import { liveActivityPushOf, recordLiveActivityChange } from './live-activity-snapshot.ts';

/**
 * Auto-end (docs/live-activities.md, "Staleness and auto-end"): an activity started or updated with
 * `endAfterSecondsWithoutUpdate` that hears nothing more for that long is ended with its last state — and its
 * `endStatus` as the status line (statusLineField: `status`, or a `status` activity's `message`), when one was
 * given — so a job that crashed never leaves a frozen progress bar on a lock screen. Each event schedules this job for
 * itself (scheduleAutoEnd); it does nothing once a later event came, or the activity ended. The end goes to every platform like a caller's, is recorded as `live_activity.ended` with
 * `reason: inactive`, and is not charged: the caller did not ask for it.
 */
export function autoEndLiveActivityHandler(deps: DeliveryDependencies): JobHandler {
  return autoEndLiveActivityJob.handler(async ({ liveActivityId, timestamp }, job, { owner }) => {
    const { db } = deps.store;
    const activity = await findLiveActivityById(db, liveActivityId);
    const now = deps.clock.now();
    if (!activity || activity.push_timestamp !== timestamp || effectiveStatus(activity, now).status !== 'active')
      return;
    // Claimed early (another node's clock ahead of this one's): come back when it is due.
    if (now < job.run_at) throw new JobRetryError('the activity has not been silent that long yet', job.run_at - now);
    const template = activity.template as TemplateName;
    const current = JSON.parse(activity.fields) as TemplateFields;
    const final =
      activity.auto_end_status === null
        ? current
        : mergeTemplateFields(current, { [statusLineField(template)]: activity.auto_end_status });
    // endStatus was checked against the template when it was given; a state it no longer fits ends as it is.
    const checked = validateTemplateFields(template, final, now);
    const fields = JSON.stringify(checked.ok ? checked.fields : current);
    await db.transaction().execute(async (trx) => {
      const ended = await endInactiveLiveActivity(trx, { id: liveActivityId, timestamp, fields, now });
      if (ended) {
        await recordLiveActivityChange(trx, ended, { type: 'ended', reason: 'inactive' }, now);
        await enqueueLiveActivityPush(trx, deps.queue, liveActivityPushOf(ended, 'end', null));
        deps.logger.info(
          { liveActivityId },
          'live activity heard nothing for its endAfterSecondsWithoutUpdate and ended',
        );
      }
      await deps.queue.complete(trx, job, owner);
    });
  });
}
