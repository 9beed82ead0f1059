import type { JobHandler } from '../../queue/worker-pool.ts';
import type { SendDependencies } from '../channel-providers.ts';
import { dispatchLiveActivityHandler } from './live-activity-dispatch-job.ts';
import { expireLiveActivityHandler } from './live-activity-expire-job.ts';
import { autoEndLiveActivityHandler } from './live-activity-auto-end-job.ts';
import { broadcastLiveActivityHandler } from './live-activity-broadcast-job.ts';
import {
  deleteLiveActivityChannelHandler,
  sweepLiveActivityChannelsHandler,
  type SweepOptions,
} from './live-activity-channel-jobs.ts';
import {
  AUTO_END_LIVE_ACTIVITY,
  BROADCAST_LIVE_ACTIVITY,
  DELETE_LIVE_ACTIVITY_CHANNEL,
  DISPATCH_LIVE_ACTIVITY,
  EXPIRE_LIVE_ACTIVITY,
  SEND_LIVE_ACTIVITY,
  START_LIVE_ACTIVITY,
  SWEEP_LIVE_ACTIVITY_CHANNELS,
} from './live-activity-jobs.ts';
import { sendLiveActivityHandler } from './live-activity-send-job.ts';
import { startScheduledLiveActivityHandler } from './live-activity-start-job.ts';

/** The Live Activity job handlers, for the delivery worker's pool (src/worker.ts). */
export function liveActivityHandlers(deps: SendDependencies, sweep: SweepOptions): Record<string, JobHandler> {
  return {
    [DISPATCH_LIVE_ACTIVITY]: dispatchLiveActivityHandler(deps),
    [SEND_LIVE_ACTIVITY]: sendLiveActivityHandler(deps),
    [START_LIVE_ACTIVITY]: startScheduledLiveActivityHandler(deps),
    [EXPIRE_LIVE_ACTIVITY]: expireLiveActivityHandler(deps),
    [AUTO_END_LIVE_ACTIVITY]: autoEndLiveActivityHandler(deps),
    [BROADCAST_LIVE_ACTIVITY]: broadcastLiveActivityHandler(deps),
    [DELETE_LIVE_ACTIVITY_CHANNEL]: deleteLiveActivityChannelHandler(deps),
    [SWEEP_LIVE_ACTIVITY_CHANNELS]: sweepLiveActivityChannelsHandler(deps, sweep),
  };
}
