import { JobRetryError } from '../../queue/job-types.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import { attachBroadcastChannel, countLiveBroadcastChannels } from '../../store/apns-broadcast-channels-store.ts';
import { findLiveActivityById, type LiveActivityRow } from '../../store/live-activities-store.ts';
import { APNS_CHANNELS_PER_APP, createBroadcastChannel, deleteBroadcastChannel, sendBroadcast } from '../apns/apns-broadcast.ts';
import { providersOfChannel, type SendDependencies } from '../channel-providers.ts';
import { effectiveStatus } from '../../domain/live-activity-lifecycle.ts';
import { broadcastLiveActivityJob, scheduleChannelDeletion } from './live-activity-jobs.ts';

/**
 * iOS 18 broadcast delivery of a Live Activity (docs/live-activities.md, "Broadcast"):
 * - at the start, the dispatch makes sure the activity has an APNs channel (ensureBroadcastChannel), and the send jobs
 *   start the broadcast part of the audience with `input-push-channel` instead of `input-push-token`;
 * - every update and the end is then ONE request on the channel (this job), whatever the number of devices on it;
 * - after the end went out, the channel is deleted (live-activity-channel-jobs.ts), so the app stays under Apple's
 *   10,000 channels.
 */
type Dependencies = SendDependencies;

/**
 * The activity's channel, created at APNs and recorded on first need; null when the activity goes per token after
 * all: no broadcast connection, or APNs refused (e.g. the app's 10,000 channels are in use). Then `broadcast_count`
 * is set to 0, so the record says what happened and every iOS device is started per token.
 */
export async function ensureBroadcastChannel(deps: Dependencies, activity: LiveActivityRow): Promise<string | null> {
  if (activity.apns_channel_id) return activity.apns_channel_id;
  // The channel's app's connection (docs/apps.md): its key, and its bundle id as the channel's topic.
  const connection = (await providersOfChannel(deps, activity.channel_id)).ios.liveActivityBroadcast;
  const fallBack = async (why: string, details: Record<string, unknown> = {}) => {
    deps.logger.warn({ liveActivityId: activity.id, ...details }, `Live Activity goes per token: ${why}`);
    await deps.store.db.updateTable('live_activities').set({ broadcast_count: 0 }).where('id', '=', activity.id).execute();
    return null;
  };
  if (!connection) return fallBack('APNs broadcast is not configured');
  // Apple's limit, checked on Clarion's own record first: no request that can only fail.
  const inUse = await countLiveBroadcastChannels(deps.store.db, { environment: connection.environment, topic: connection.topic });
  if (inUse >= APNS_CHANNELS_PER_APP) return fallBack('the app has as many APNs channels as Apple allows (10,000 per environment)', { inUse });
  const created = await createBroadcastChannel(connection);
  if (!created.ok) {
    if (created.outcome.kind === 'retry') throw new JobRetryError(`creating the APNs channel: ${created.outcome.reason}`, created.outcome.retryAfterMs);
    return fallBack(created.limitReached ? "the app has as many APNs channels as Apple allows (10,000 per environment)" : 'APNs refused to create a channel', { outcome: created.outcome });
  }
  const channelId = await deps.store.db.transaction().execute((trx) =>
    attachBroadcastChannel(trx, { liveActivityId: activity.id, channelId: created.channelId, environment: connection.environment, topic: connection.topic, now: deps.clock.now() }),
  );
  // A repeated dispatch made a second channel: the first one stays, this one goes at once (or with the sweeper).
  if (channelId !== created.channelId) await deleteBroadcastChannel(connection, created.channelId);
  deps.logger.info({ liveActivityId: activity.id, channelId }, 'APNs broadcast channel created for the Live Activity');
  return channelId;
}

/**
 * One update or end on the channel. A retryable answer comes back with the queue's backoff (or Retry-After); an
 * update overtaken by a newer event, or made pointless by the end, is dropped, as for tokens. After the end (sent,
 * or given up on) the channel's deletion is scheduled in the transaction that completes the job.
 */
export function broadcastLiveActivityHandler(deps: Dependencies): JobHandler {
  return broadcastLiveActivityJob.handler(async ({ push, channelId }, job, { owner }) => {
    const activity = await findLiveActivityById(deps.store.db, push.activityId);
    if (!activity) return;
    const connection = (await providersOfChannel(deps, activity.channel_id)).ios.liveActivityBroadcast;
    // A first attempt always goes (a newer event may be queued right behind it); a retry only if nothing newer went out.
    const retried = job.attempt > 1;
    const outdated = push.event === 'update' && (effectiveStatus(activity, deps.clock.now()).status === 'ended' || (retried && activity.push_timestamp > push.timestamp));
    if (connection && !outdated) {
      const outcome = await sendBroadcast(connection, channelId, push);
      if (outcome.kind === 'retry') throw new JobRetryError(`broadcast on the APNs channel: ${outcome.reason}`, outcome.retryAfterMs);
      const log = { liveActivityId: push.activityId, event: push.event, timestamp: push.timestamp, channelId, outcome };
      if (outcome.kind === 'delivered') deps.logger.info(log, 'live activity broadcast sent');
      else deps.logger.error(log, 'live activity broadcast failed');
    }
    if (push.event !== 'end') return;
    await deps.store.db.transaction().execute(async (trx) => {
      await scheduleChannelDeletion(trx, deps.queue, channelId);
      await deps.queue.complete(trx, job, owner);
    });
  });
}
