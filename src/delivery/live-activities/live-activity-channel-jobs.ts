import { JobRetryError } from '../../queue/job-types.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import {
  appIdOfBroadcastChannel,
  appIdsWithBroadcastChannels,
  findSweepableBroadcastChannels,
  knownBroadcastChannelIds,
  markBroadcastChannelDeleted,
  recordUnknownBroadcastChannels,
} from '../../store/live-activities/apns-broadcast-channels-queries.ts';
import { deleteBroadcastChannel, listBroadcastChannels, type ApnsBroadcastConnection } from './apns-broadcast.ts';
import type { SendDependencies } from '../channel-providers.ts';
import type { DeliveryDependencies } from '../dispatch-job.ts';
import { deleteLiveActivityChannelJob, sweepLiveActivityChannelsJob } from './live-activity-jobs.ts';

/**
 * Keeping APNs channels from piling up (Apple allows 10,000 per app and environment, and keeps each until deleted,
 * docs/protocols.md 2.5):
 * - `live_activity.delete_channel` deletes the channel of an activity that ended (scheduled by the end's broadcast,
 *   or by the 8-hour expiry) and marks it deleted;
 * - `live_activity.sweep_channels` (every SWEEP_INTERVAL_MS, src/worker.ts) deletes what a crash left: recorded
 *   channels whose activity ended without its deletion running, and channels recorded without an activity (a repeated
 *   dispatch's second one). Channels APNs lists that Clarion has no record of may be another backend's for the same
 *   bundle id (Apple keeps a channel until its owner deletes it), so by default they are only counted in the log. With
 *   CLARION_APNS_DELETE_UNKNOWN_CHANNELS they are taken as Clarion's own, created by a process that died between APNs'
 *   answer and recording it: recorded when first seen and deleted on a later sweep, once older than the grace period,
 *   so a dispatch that is between the two steps right now is never cut short.
 * Each channel is deleted with the credentials of the app that created it (its activity's channel's app, docs/apps.md);
 * the sweeper visits the built-in app and every app with iOS credentials whose bundle id has channels recorded.
 */
type Dependencies = SendDependencies;

/** How long a channel may exist without an activity before the sweeper deletes it. */
export const ORPHAN_CHANNEL_GRACE_MS = 10 * 60_000;
/** How often the worker enqueues a sweep. */
export const SWEEP_INTERVAL_MS = 15 * 60_000;
const SWEEP_BATCH = 500;

export function deleteLiveActivityChannelHandler(deps: Dependencies): JobHandler {
  return deleteLiveActivityChannelJob.handler(async ({ channelId }) => {
    const providers = deps.providersFor
      ? await deps.providersFor(await appIdOfBroadcastChannel(deps.store.db, channelId))
      : deps.providers;
    const connection = providers.ios.liveActivityBroadcast;
    if (!connection) return;
    await deleteOne(deps, connection, channelId);
  });
}

/** `deleteUnknownChannels`: CLARION_APNS_DELETE_UNKNOWN_CHANNELS. */
export interface SweepOptions {
  deleteUnknownChannels: boolean;
}

export function sweepLiveActivityChannelsHandler(deps: Dependencies, options: SweepOptions): JobHandler {
  return sweepLiveActivityChannelsJob.handler(async () => {
    const connections = [deps.providers.ios.liveActivityBroadcast];
    if (deps.providersFor) {
      for (const appId of await appIdsWithBroadcastChannels(deps.store.db))
        connections.push((await deps.providersFor(appId)).ios.liveActivityBroadcast);
    }
    for (const connection of connections) {
      if (connection) await sweepBroadcastChannels(deps, connection, options);
    }
  });
}

/** One sweep over one app and environment: the connection says which. */
async function sweepBroadcastChannels(
  deps: DeliveryDependencies,
  connection: ApnsBroadcastConnection,
  options: SweepOptions,
): Promise<void> {
  const scope = { environment: connection.environment, topic: connection.topic };
  let discovered = 0;
  const listed = await listBroadcastChannels(connection);
  if (listed.ok) {
    const known = await knownBroadcastChannelIds(deps.store.db, listed.channelIds);
    const unknown = listed.channelIds.filter((id) => !known.has(id));
    if (options.deleteUnknownChannels) {
      await recordUnknownBroadcastChannels(deps.store.db, { ...scope, channelIds: unknown, now: deps.clock.now() });
      discovered = unknown.length;
    } else if (unknown.length > 0) {
      deps.logger.info(
        { ...scope, unknown: unknown.length },
        'APNs lists broadcast channels Clarion did not create; left alone (CLARION_APNS_DELETE_UNKNOWN_CHANNELS=true deletes them)',
      );
    }
  } else {
    deps.logger.warn(
      { outcome: listed.outcome },
      'listing the APNs broadcast channels failed; sweeping the recorded ones only',
    );
  }
  const sweepable = await findSweepableBroadcastChannels(deps.store.db, {
    ...scope,
    now: deps.clock.now(),
    orphanGraceMs: ORPHAN_CHANNEL_GRACE_MS,
    limit: SWEEP_BATCH,
  });
  let deleted = 0;
  for (const channel of sweepable) {
    if (await deleteOne(deps, connection, channel.channel_id, { retry: false })) deleted += 1;
  }
  if (deleted > 0 || discovered > 0) deps.logger.info({ deleted, discovered }, 'APNs broadcast channels swept');
}

async function deleteOne(
  deps: DeliveryDependencies,
  connection: ApnsBroadcastConnection,
  channelId: string,
  options = { retry: true },
): Promise<boolean> {
  const result = await deleteBroadcastChannel(connection, channelId);
  if (result.ok) {
    await markBroadcastChannelDeleted(deps.store.db, { channelId, now: deps.clock.now() });
    return true;
  }
  if (options.retry && result.outcome.kind === 'retry')
    throw new JobRetryError(`deleting APNs channel: ${result.outcome.reason}`, result.outcome.retryAfterMs);
  // Left recorded: the next sweep tries again.
  deps.logger.warn({ channelId, outcome: result.outcome }, 'deleting an APNs broadcast channel failed');
  return false;
}
