import type { JobHandler } from '../../queue/worker-pool.ts';
import type { Kysely } from 'kysely';
import type { ApnsEnvironment } from '../../domain/apns-environment.ts';
import { findLiveActivityById, type LiveActivityRow } from '../../store/live-activities/live-activities-queries.ts';
import { findLiveActivityTokens } from '../../store/live-activities/live-activity-tokens-queries.ts';
import type { Database } from '../../store/schema.ts';
import {
  countLiveActivitySends,
  markLiveActivityEventDispatched,
} from '../../store/live-activities/live-activity-delivery-queries.ts';
import { pageLiveActivityTargets } from '../../store/live-activities/live-activity-targets-queries.ts';
import type { SendDependencies } from '../channel-providers.ts';
import { DISPATCH_PAGE_SIZE, SEND_BATCH_SIZE } from '../job-kinds.ts';
import { ensureBroadcastChannel } from './live-activity-broadcast-job.ts';
import {
  broadcastLiveActivityJob,
  dispatchLiveActivityJob,
  enqueueLiveActivitySends,
  sendJobKey,
  type LiveActivitySendPayload,
} from './live-activity-jobs.ts';
import { joinsChannel } from './live-activity-send-job.ts';

/**
 * Fan-out of one lifecycle event, step one (the notification dispatch's shape, same page and batch sizes): pages
 * the event's targets per platform (live-activity-targets-queries.ts) and enqueues send jobs of up to 500 subscribers,
 * one transaction per page.
 *
 * Unlike a notification's dispatch it keeps no cursor: a dispatch that dies pages again from the start, and each
 * send job's unique key (event timestamp, platform, first subscriber, round) makes re-enqueueing a batch it already
 * enqueued a no-op. If subscribers left in between, pages can shift and a few devices get the event twice, which
 * is harmless here: the repeat has the same `timestamp` and content (iOS keeps the newer state; the Android app
 * re-posts the same notification). A batch's devices count as targeted by the event when its job is made
 * (enqueueLiveActivitySends), so paging again counts no batch twice; the last page marks the event dispatched.
 *
 * A dispatch with `lostChannel` is the restart of a broadcast channel's audience per token (live-activity-broadcast-job.ts):
 * an iOS start to those of the start's targets that joined that channel and have no activity token of their own.
 */
export function dispatchLiveActivityHandler(deps: SendDependencies): JobHandler {
  return dispatchLiveActivityJob.handler(async ({ push, platforms, lostChannel }, _job, { signal }) => {
    const { db } = deps.store;
    const activity = await findLiveActivityById(db, push.activityId);
    if (!activity) return;
    // Broadcast (iOS 18): the start needs the channel before any device is started on it; every later event is one
    // request on the channel besides the per-token pages (live-activity-broadcast-job.ts).
    if (push.event === 'start' && platforms.includes('ios') && !lostChannel && needsChannel(activity))
      await ensureBroadcastChannel(deps, activity);
    if (push.event !== 'start' && platforms.includes('ios') && activity.apns_channel_id) {
      const channelId = activity.apns_channel_id;
      await db.transaction().execute(async (trx) => {
        const made = await broadcastLiveActivityJob.enqueueNew(
          deps.queue,
          trx,
          { push, channelId, devices: activity.broadcast_count },
          { uniqueKey: `live_activity.broadcast:${push.activityId}:${push.timestamp}` },
        );
        // The one request covers every device started on the channel.
        if (made)
          await countLiveActivitySends(trx, {
            liveActivityId: push.activityId,
            timestamp: push.timestamp,
            platform: 'ios',
            mode: 'broadcast',
            counts: { targeted: activity.broadcast_count },
          });
      });
    }
    let enqueued = 0;
    for (const platform of platforms) {
      let after: string | null = null;
      for (;;) {
        if (signal.aborted) throw new Error('worker is shutting down; the dispatch pages again from the start');
        const page = await pageLiveActivityTargets(db, {
          activity,
          event: push.event,
          platform,
          after,
          limit: DISPATCH_PAGE_SIZE,
        });
        if (page.length === 0) break;
        const targets = lostChannel ? await onLostChannel(db, activity, page, lostChannel.environment) : page;
        await db.transaction().execute(async (trx) => {
          for (let start = 0; start < targets.length; start += SEND_BATCH_SIZE) {
            const subscriberIds = targets.slice(start, start + SEND_BATCH_SIZE);
            const payload: LiveActivitySendPayload = { push, platform, subscriberIds, round: 0 };
            await enqueueLiveActivitySends(trx, deps.queue, payload, sendJobKey(push, platform, subscriberIds[0]!, 0));
          }
        });
        enqueued += targets.length;
        after = page[page.length - 1]!;
      }
    }
    await markLiveActivityEventDispatched(db, {
      liveActivityId: push.activityId,
      timestamp: push.timestamp,
      now: deps.clock.now(),
    });
    deps.logger.info(
      { liveActivityId: push.activityId, event: push.event, timestamp: push.timestamp, targeted: enqueued },
      'live activity dispatch finished',
    );
  });
}

/** Of one page of iOS start targets, those the lost channel's start reached: on it, and without an activity token. */
async function onLostChannel(
  db: Kysely<Database>,
  activity: LiveActivityRow,
  ids: string[],
  environment: ApnsEnvironment,
): Promise<string[]> {
  const subscribers = await db
    .selectFrom('subscribers')
    .select(['id', 'os_version', 'apns_environment'])
    .where('id', 'in', ids)
    .execute();
  const withToken = new Set((await findLiveActivityTokens(db, activity.id, ids)).map((row) => row.subscriber_id));
  const reached = new Set(
    subscribers
      .filter((subscriber) => joinsChannel(activity, subscriber, environment) && !withToken.has(subscriber.id))
      .map((subscriber) => subscriber.id),
  );
  return ids.filter((id) => reached.has(id));
}

/** `broadcast` always gets a channel (devices may join it themselves); `auto` when some iOS device supports it. */
function needsChannel(activity: LiveActivityRow): boolean {
  return activity.delivery === 'broadcast' || (activity.delivery === 'auto' && activity.broadcast_count > 0);
}
