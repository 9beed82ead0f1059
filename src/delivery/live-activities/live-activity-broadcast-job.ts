import type { Kysely } from 'kysely';
import { JobRetryError } from '../../queue/job-types.ts';
import { COMPLETED_BY_HANDLER, type JobHandler } from '../../queue/worker-pool.ts';
import {
  attachBroadcastChannel,
  countLiveBroadcastChannels,
  markBroadcastChannelDeleted,
} from '../../store/live-activities/apns-broadcast-channels-queries.ts';
import { findLiveActivityById, type LiveActivityRow } from '../../store/live-activities/live-activities-queries.ts';
import { countLiveActivitySends, type SendCounts } from '../../store/live-activities/live-activity-delivery-queries.ts';
import type { Database } from '../../store/schema.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import { isLastAttempt } from '../send-batch.ts';
import {
  APNS_CHANNELS_PER_APP,
  createBroadcastChannel,
  deleteBroadcastChannel,
  sendBroadcast,
  type ApnsBroadcastConnection,
} from './apns-broadcast.ts';
import { providersOfChannel, type SendDependencies } from '../channel-providers.ts';
import { effectiveStatus } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { JobRow } from '../../queue/job-types.ts';
import { startAlertOf } from './live-activity-catch-up.ts';
import { broadcastLiveActivityJob, dispatchLiveActivityJob, scheduleChannelDeletion } from './live-activity-jobs.ts';
import type { LiveActivityPush } from './live-activity-push.ts';
import { liveActivityPushOf } from './live-activity-snapshot.ts';

/**
 * iOS 18 broadcast delivery of a Live Activity (docs/live-activities.md, "Broadcast"):
 * - at the start, the dispatch makes sure the activity has an APNs channel (ensureBroadcastChannel), and the send jobs
 *   start the broadcast part of the audience with `input-push-channel` instead of `input-push-token`;
 * - every update and the end is then ONE request on the channel (this job), whatever the number of devices on it;
 * - after the end went out, the channel is deleted (live-activity-channel-jobs.ts), so the app stays under Apple's
 *   10,000 channels;
 * - a channel APNs no longer knows (ChannelNotRegistered: deleted by someone else) reaches nobody, so the activity
 *   leaves it and goes per token: an update restarts the devices that joined the channel by push-to-start with
 *   `input-push-token`, carrying the current state, and they report tokens like any per-token device
 *   (lostChannel in live-activity-dispatch-job.ts). An end has nothing to fall back to: those devices' activities
 *   can take no more pushes and end at their 8 hours.
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
    await deps.store.db
      .updateTable('live_activities')
      .set({ broadcast_count: 0 })
      .where('id', '=', activity.id)
      .execute();
    return null;
  };
  if (!connection) return fallBack('APNs broadcast is not configured');
  // Apple's limit, checked on Clarion's own record first: no request that can only fail.
  const inUse = await countLiveBroadcastChannels(deps.store.db, {
    environment: connection.environment,
    topic: connection.topic,
  });
  if (inUse >= APNS_CHANNELS_PER_APP)
    return fallBack('the app has as many APNs channels as Apple allows (10,000 per environment)', { inUse });
  const created = await createBroadcastChannel(connection);
  if (!created.ok) {
    if (created.outcome.kind === 'retry')
      throw new JobRetryError(`creating the APNs channel: ${created.outcome.reason}`, created.outcome.retryAfterMs);
    return fallBack(
      created.limitReached
        ? 'the app has as many APNs channels as Apple allows (10,000 per environment)'
        : 'APNs refused to create a channel',
      { outcome: created.outcome },
    );
  }
  const channelId = await deps.store.db.transaction().execute((trx) =>
    attachBroadcastChannel(trx, {
      liveActivityId: activity.id,
      channelId: created.channelId,
      environment: connection.environment,
      topic: connection.topic,
      now: deps.clock.now(),
    }),
  );
  // A repeated dispatch made a second channel: the first one stays, this one goes at once (or with the sweeper).
  if (channelId !== created.channelId) await deleteBroadcastChannel(connection, created.channelId);
  deps.logger.info({ liveActivityId: activity.id, channelId }, 'APNs broadcast channel created for the Live Activity');
  return channelId;
}

/**
 * One update or end on the channel. A retryable answer comes back with the queue's backoff (or Retry-After), until the
 * job's last attempt, which gives up; an update overtaken by a newer event, or made pointless by the end, is dropped,
 * as for tokens. The outcome counts for every device on the channel in the event's delivery stats
 * (live-activity-delivery-queries.ts, mode `broadcast`), in the transaction that completes the job; after the end
 * (sent, or given up on) the same transaction schedules the channel's deletion.
 */
export function broadcastLiveActivityHandler(deps: Dependencies): JobHandler {
  return broadcastLiveActivityJob.handler(async ({ push, channelId, devices }, job, { owner }) => {
    const activity = await findLiveActivityById(deps.store.db, push.activityId);
    if (!activity) return;
    // A job queued by an earlier version carries no count: the devices the start put on the channel.
    const covered = devices ?? activity.broadcast_count;
    const connection = (await providersOfChannel(deps, activity.channel_id)).ios.liveActivityBroadcast;
    // A first attempt always goes (a newer event may be queued right behind it); a retry only if nothing newer went out.
    const retried = job.attempt > 1;
    const outdated =
      push.event === 'update' &&
      (effectiveStatus(activity, deps.clock.now()).status === 'ended' ||
        (retried && activity.push_timestamp > push.timestamp));
    let counts: { counts: SendCounts; failureReason?: string };
    if (outdated) counts = { counts: { skipped: covered } };
    else if (!connection)
      counts = { counts: { failed: covered }, failureReason: 'provider_configuration:apns_broadcast_not_configured' };
    else {
      const outcome = await sendBroadcast(connection, channelId, push);
      if (outcome.kind === 'retry' && !isLastAttempt(job))
        throw new JobRetryError(`broadcast on the APNs channel: ${outcome.reason}`, outcome.retryAfterMs);
      const log = { liveActivityId: push.activityId, event: push.event, timestamp: push.timestamp, channelId, outcome };
      if (outcome.kind === 'token_dead' && outcome.providerReason === 'ChannelNotRegistered') {
        deps.logger.warn(log, 'APNs no longer knows the Live Activity broadcast channel: the activity goes per token');
        return leaveLostChannel(deps, { push, channelId, covered, connection, job, owner });
      }
      if (outcome.kind === 'delivered') deps.logger.info(log, 'live activity broadcast sent');
      else deps.logger.error(log, 'live activity broadcast failed');
      counts =
        outcome.kind === 'delivered'
          ? { counts: { delivered: covered } }
          : { counts: { failed: covered }, failureReason: broadcastFailureReason(outcome) };
    }
    await deps.store.db.transaction().execute(async (trx) => {
      await countBroadcast(trx, push, counts);
      if (push.event === 'end') await scheduleChannelDeletion(trx, deps.queue, channelId);
      await deps.queue.complete(trx, job, owner);
    });
    return COMPLETED_BY_HANDLER;
  });
}

/** Why a broadcast failed, as a device's failure says it: `retry_exhausted`, or the provider's reason. */
function broadcastFailureReason(outcome: Exclude<DeliveryOutcome, { kind: 'delivered' }>): string {
  if (outcome.kind === 'retry') return 'retry_exhausted';
  if (outcome.kind === 'token_dead') return `apns:${outcome.providerReason}`;
  return outcome.reason;
}

function countBroadcast(
  trx: Kysely<Database>,
  push: LiveActivityPush,
  counts: { counts: SendCounts; failureReason?: string },
): Promise<void> {
  return countLiveActivitySends(trx, {
    liveActivityId: push.activityId,
    timestamp: push.timestamp,
    platform: 'ios',
    mode: 'broadcast',
    ...counts,
  });
}

/**
 * The activity leaves a channel APNs does not know (its record says per token from now on, and the channel is marked
 * deleted, as it is at APNs); an update restarts the channel's audience per token, in the transaction that completes
 * the job.
 */
async function leaveLostChannel(
  deps: Dependencies,
  input: {
    push: LiveActivityPush;
    channelId: string;
    /** The devices the request was for. */
    covered: number;
    connection: ApnsBroadcastConnection;
    job: JobRow;
    owner: string;
  },
): Promise<typeof COMPLETED_BY_HANDLER> {
  const { push, channelId, covered, connection, job, owner } = input;
  await deps.store.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const activity = await trx
      .updateTable('live_activities')
      .set({ apns_channel_id: null, broadcast_count: 0 })
      .where('id', '=', push.activityId)
      .where('apns_channel_id', '=', channelId)
      .returningAll()
      .executeTakeFirst();
    await markBroadcastChannelDeleted(trx, { channelId, now });
    const restarted = activity && push.event === 'update' && effectiveStatus(activity, now).status === 'active';
    // Restarted devices are counted with their per-token sends; the others are beyond reach.
    await countBroadcast(
      trx,
      push,
      restarted
        ? { counts: { skipped: covered } }
        : { counts: { failed: covered }, failureReason: 'apns:ChannelNotRegistered' },
    );
    if (restarted) {
      const restart = liveActivityPushOf(activity, 'start', startAlertOf(activity));
      await dispatchLiveActivityJob.enqueue(
        deps.queue,
        trx,
        { push: restart, platforms: ['ios'], lostChannel: { channelId, environment: connection.environment } },
        { uniqueKey: `live_activity.dispatch:${push.activityId}:lost:${channelId}` },
      );
    }
    await deps.queue.complete(trx, job, owner);
  });
  return COMPLETED_BY_HANDLER;
}
