import type { QuietHours } from '../domain/quiet-hours.ts';
import type { FrequencyCap } from '../domain/frequency-cap.ts';
import { defineJob } from '../queue/job-definition.ts';
import type { RecordedOutcomes } from './send-batch.ts';

/** Job kinds of the delivery engine and their payloads. */

export interface DispatchPayload {
  notificationId: string;
  /**
   * Local-time delivery dispatches one time zone per job: the subscribers whose `timezone` is this one, or, for
   * null, those without a time zone. Absent: every subscriber of the channel.
   */
  timezone?: string | null;
  /** When this dispatch was meant to run (ms): ttlSeconds counts from here. */
  dueAt?: number;
  /** The last subscriber id whose send job was enqueued: a restarted dispatch resumes after it. */
  cursor?: string | null;
  /**
   * A throttled send (domain/throttle.ts): when its first send job was due and how many pushes it has enqueued so far,
   * so a restarted dispatch keeps the pace.
   */
  paced?: { from: number; pushes: number };
}

export interface SendBatchPayload {
  notificationId: string;
  platform: 'ios' | 'android' | 'web';
  subscriberIds: string[];
  /** 0 for the dispatch's batch; +1 each time the tokens a provider asked to retry are sent again. */
  round: number;
  /**
   * When these pushes expire (epoch ms): the notification's due time + ttlSeconds, fixed by the dispatch so that a
   * retry hours later neither restarts the TTL nor sends after it (push-expiry.ts). null: no ttlSeconds. Absent in
   * jobs enqueued before this field existed: then taken from the notification.
   */
  expiresAt?: number | null;
  /**
   * The app whose credentials send these pushes (docs/apps.md), or null for the built-in providers: the channel's app
   * when the dispatch ran, fixed per notification like `expiresAt`, so the send jobs do not read the channel per batch
   * and a channel moved to another app mid-fan-out (POST /channels/{code}/update) does not split one notification
   * between two apps' credentials. Absent in jobs enqueued before this field existed: then read from the channel.
   */
  appId?: string | null;
  /**
   * The channel's frequency cap when the dispatch ran (domain/frequency-cap.ts), fixed per notification like `appId`;
   * `enforce` false for a send that ignores it (it still counts). Null or absent: nothing to cap or count (an uncapped
   * channel, a silent push).
   */
  frequencyCap?: (FrequencyCap & { enforce: boolean }) | null;
  /**
   * The channel's quiet hours when the dispatch ran (domain/quiet-hours.ts), with the zone of subscribers without one
   * (the account's default, else UTC). Null or absent: nothing waits (no quiet hours, ignoreQuietHours, a silent push).
   */
  quietHours?: (QuietHours & { defaultZone: string }) | null;
  /**
   * Whether each push carries its receipt (domain/receipt.ts), as the account had it when the dispatch ran; fixed per
   * notification like `appId`. Absent (jobs enqueued before receipts existed): none.
   */
  receipts?: boolean;
  /** A batch held for quiet hours, now due at their end: sent without judging quiet hours again. */
  heldForQuietHours?: boolean;
  /**
   * The provider's answers, when this batch was sent but settling them could not be committed (send-batch.ts): the
   * job's next attempt settles these instead of sending again.
   */
  sent?: RecordedOutcomes;
}

export const dispatchNotificationJob = defineJob<DispatchPayload>('notification.dispatch');
/** Its lane is its platform: a silent APNs stalls the iOS batches only (src/queue/worker-pool.ts). */
export const sendBatchJob = defineJob<SendBatchPayload>('notification.send', { lane: (payload) => payload.platform });
export const DISPATCH_NOTIFICATION = dispatchNotificationJob.kind;
export const SEND_BATCH = sendBatchJob.kind;

/**
 * Subscribers a dispatch reads per page and tokens per send job. A page of 1,000 keeps the dispatch's memory flat
 * whatever the channel's size; batches of 500 give a provider enough concurrent streams to fill (APNs allows about
 * 1,000 per connection) while a crash repeats at most 500 pushes per batch in flight.
 */
export const DISPATCH_PAGE_SIZE = 1000;
export const SEND_BATCH_SIZE = 500;
/** Rounds of provider retries before a token's push is given up as failed (`retry_exhausted`): with the 1 h backoff cap, about 8 hours. */
export const MAX_SEND_ROUNDS = 15;
