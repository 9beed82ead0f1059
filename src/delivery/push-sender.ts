import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { Platform } from '../domain/device-token.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import type { PushContent } from './push-content.ts';
import type { LiveActivityPush } from './live-activities/live-activity-push.ts';
import type { ReaderPlace } from '../domain/live-activities/live-activity-text.ts';
import type { ApnsBroadcastConnection } from './live-activities/apns-broadcast.ts';

/** What a send job knows about a push besides its token and content. */
export interface PushContext {
  channelCode: string;
  /** iOS: the subscriber's APNs environment; null or absent when not known (then learned: apns-environment-sender.ts). */
  apnsEnvironment?: ApnsEnvironment | null;
}

/**
 * One provider as the send jobs see it: a token and content in, an outcome out, for notifications and for Live
 * Activity lifecycle pushes (src/delivery/live-activities/). Built for every app by app-senders.ts.
 */
export interface PushSender {
  /** `receipt`: the push's receipt (domain/receipt.ts), carried as `clarionReceipt`; absent for none. */
  send(token: string, content: PushContent, context: PushContext, receipt?: string): Promise<DeliveryOutcome>;
  /**
   * A Live Activity lifecycle push. `reader` is the subscriber's zone and language, for a platform that renders the
   * state as text (the web). `apnsEnvironment` (iOS): the subscriber's APNs environment when known, and then that host
   * only; unknown, it is learned as for notifications (apns/apns-environment-sender.ts).
   */
  sendLiveActivity(
    token: string,
    push: LiveActivityPush,
    reader: ReaderPlace,
    apnsEnvironment?: ApnsEnvironment | null,
  ): Promise<DeliveryOutcome>;
  /**
   * iOS: the WidgetKit push that reloads the app's widgets (apns/apns-widget-push.ts), to the device's widget push
   * token, in the subscriber's APNs environment when known, else learned as for notifications. Absent for the
   * platforms that have no widgets push.
   */
  sendWidgetReload?(token: string, apnsEnvironment: ApnsEnvironment | null): Promise<DeliveryOutcome>;
  close(): Promise<void>;
}

/** What a sender may offer besides sending. */
export interface SenderCapabilities {
  /** The HTTP/2 pool's counters (the built-in app's APNs and FCM: built-in-app.ts), read when metrics are scraped. */
  stats?(): { sessions: number; activeStreams: number; queued: number };
  /**
   * iOS: the app's APNs broadcast connection (channel management and broadcast sends, live-activities/apns-broadcast.ts); absent
   * where there is none, and Live Activities then go per token.
   */
  liveActivityBroadcast?: ApnsBroadcastConnection;
}

/** The senders of one app, by platform. */
export type PushProviders = Record<Platform, PushSender & SenderCapabilities>;

/**
 * The sender for a platform whose credentials are not configured: every push is refused as `fatal`, which fails
 * the batch loudly with the fix in the log, instead of silently dropping it.
 */
export function unconfiguredSender(reason: string, fix: string): PushSender {
  return {
    async send() {
      return { kind: 'fatal', reason, fix };
    },
    async sendLiveActivity() {
      return { kind: 'fatal', reason, fix };
    },
    async sendWidgetReload() {
      return { kind: 'fatal', reason, fix };
    },
    async close() {},
  };
}
