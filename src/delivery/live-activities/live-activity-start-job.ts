import type { Kysely } from 'kysely';
import { parseAudience } from '../../domain/audience.ts';
import { supportsBroadcast } from '../../domain/ios-version.ts';
import type { LiveActivityAlert } from '../../domain/live-activities/live-activity-alert.ts';
import { liveActivityExpiresAt } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { JobQueue } from '../../queue/job-queue.ts';
import { JobRetryError } from '../../queue/job-types.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import { recordEvent } from '../../store/events-queries.ts';
import {
  findLiveActivityById,
  markLiveActivityStarted,
  type LiveActivityRow,
} from '../../store/live-activities/live-activities-queries.ts';
import { countIosStartTargetsByOsVersion } from '../../store/live-activities/live-activity-targets-queries.ts';
import type { Database } from '../../store/schema.ts';
import { parseJson } from '../../store/store-errors.ts';
import { countLiveActivityTargets } from '../../store/subscribers-queries.ts';
import type { DeliveryDependencies } from '../dispatch-job.ts';
import {
  enqueueLiveActivityPush,
  scheduleAutoEnd,
  scheduleLiveActivityExpiry,
  startLiveActivityJob,
} from './live-activity-jobs.ts';
import { liveActivityPushOf } from './live-activity-snapshot.ts';

/**
 * Who a start reaches, counted when it goes out: every target (`recipientCount`), and of the iOS devices those the
 * start puts on the broadcast channel: all of them (`broadcast`), iOS 18+ ones (`auto`), none (`tokens`).
 */
export async function liveActivityStartCounts(
  db: Kysely<Database>,
  activity: Pick<LiveActivityRow, 'channel_id' | 'template' | 'audience' | 'delivery'>,
): Promise<{ recipientCount: number; broadcastCount: number }> {
  const recipientCount = await countLiveActivityTargets(
    db,
    activity.channel_id,
    activity.template,
    parseAudience(activity.audience),
  );
  if (activity.delivery === 'tokens') return { recipientCount, broadcastCount: 0 };
  const versions = await countIosStartTargetsByOsVersion(db, {
    channelId: activity.channel_id,
    template: activity.template,
    audience: activity.audience,
  });
  const broadcastCount = versions
    .filter(({ osVersion }) => activity.delivery === 'broadcast' || supportsBroadcast(osVersion))
    .reduce((sum, { count }) => sum + count, 0);
  return { recipientCount, broadcastCount };
}

/**
 * What an activity's start writes besides its row, in the transaction that starts it (an immediate start's, or the
 * start job's at sendAt): `live_activity.started`, the dispatch job of its `start` push (push-to-start on iOS, a data
 * message on Android, a notification on the web), the auto-end it asked for and the job that ends it after 8 hours,
 * all counted from `now`, the moment it starts.
 */
export async function recordLiveActivityStart(
  trx: Kysely<Database>,
  queue: JobQueue,
  activity: LiveActivityRow,
  now: number,
): Promise<void> {
  const alert = parseJson<LiveActivityAlert>(activity.alert);
  await recordEvent(trx, {
    accountId: activity.account_id,
    type: 'live_activity.started',
    data: {
      liveActivityId: activity.id,
      channelCode: activity.channel_code,
      template: activity.template,
      fields: JSON.parse(activity.fields) as unknown,
      alert,
      recipientCount: activity.recipient_count,
    },
    now,
  });
  await enqueueLiveActivityPush(trx, queue, liveActivityPushOf(activity, 'start', alert));
  await scheduleAutoEnd(trx, queue, activity, now);
  await scheduleLiveActivityExpiry(trx, queue, { liveActivityId: activity.id, expiresAt: liveActivityExpiresAt(now) });
}

/**
 * A scheduled start (docs/live-activities.md, "Scheduled starts"), due at the activity's sendAt: in ONE transaction
 * with the job's completion, the activity becomes `active` from now and starts as an immediate start does
 * (recordLiveActivityStart), with the fields, alert and times its updates left it. The row changes only while it is
 * still `scheduled` (live-activities-queries.ts markLiveActivityStarted), so a cancel that races this job leaves
 * exactly one outcome: canceled and nothing pushed, or started and the cancel answered 409. A job claimed again after
 * a crash finds the activity started and does nothing more.
 */
export function startScheduledLiveActivityHandler(deps: DeliveryDependencies): JobHandler {
  return startLiveActivityJob.handler(async ({ liveActivityId }, job, { owner }) => {
    const { db } = deps.store;
    const now = deps.clock.now();
    // Claimed early (another node's clock ahead of this one's): come back when it is due.
    if (now < job.run_at) throw new JobRetryError('the activity is not due to start yet', job.run_at - now);
    await db.transaction().execute(async (trx) => {
      const scheduled = await findLiveActivityById(trx, liveActivityId);
      if (scheduled?.status === 'scheduled') {
        const counts = await liveActivityStartCounts(trx, scheduled);
        const started = await markLiveActivityStarted(trx, { id: liveActivityId, now, ...counts });
        if (started) {
          await recordLiveActivityStart(trx, deps.queue, started, now);
          deps.logger.info({ liveActivityId }, 'scheduled live activity started');
        }
      }
      await deps.queue.complete(trx, job, owner);
    });
  });
}
