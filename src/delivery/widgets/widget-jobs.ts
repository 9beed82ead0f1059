import { defineJob } from '../../queue/job-definition.ts';
import type { RecordedOutcomes } from '../send-batch.ts';

/**
 * A widget reload (POST /widgets/reload, docs/live-activities.md "Widgets") on the durable queue, in the shape of a
 * notification's fan-out: one dispatch pages the channel's iOS subscribers with a widget push token and enqueues send
 * jobs of up to 500 (job-kinds.ts SEND_BATCH_SIZE); each sends the WidgetKit push and settles its answers in one
 * transaction with its completion.
 */
export interface WidgetDispatchPayload {
  /** The reload's id (`wrl_…`), as the 202 answered it. */
  reloadId: string;
  accountId: string;
  channelId: string;
}

export interface WidgetSendPayload {
  reloadId: string;
  accountId: string;
  channelId: string;
  subscriberIds: string[];
  /** 0 for the dispatch's batch; +1 each time the tokens APNs asked to retry are sent again. */
  round: number;
  /** The answers, when this batch was sent but settling them could not be committed (send-batch.ts). */
  sent?: RecordedOutcomes;
}

export const dispatchWidgetReloadJob = defineJob<WidgetDispatchPayload>('widget.dispatch');
/** In the iOS lane: an APNs that stops answering stalls the iOS sends only (src/queue/worker-pool.ts). */
export const sendWidgetReloadJob = defineJob<WidgetSendPayload>('widget.send', { lane: () => 'ios' });
export const DISPATCH_WIDGET_RELOAD = dispatchWidgetReloadJob.kind;
export const SEND_WIDGET_RELOAD = sendWidgetReloadJob.kind;

/** A send job's unique key: the dispatch paging again, or a retry round enqueued twice, makes no second job. */
export function widgetSendJobKey(reloadId: string, firstSubscriberId: string, round: number): string {
  return `widget.send:${reloadId}:${firstSubscriberId}:${round}`;
}
