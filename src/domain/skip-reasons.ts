/**
 * Why a recipient of a notification was skipped: nothing was sent to it, on purpose. A skip counts in the
 * notification's `stats.skipped`, never in `failed`, and is never retried. Every reason but `unsubscribed` is listed
 * by GET /notifications/{id}/failures with `outcome: "skipped"` (docs/api.md, "Notifications").
 */
export const SKIP_REASONS = {
  /** The subscriber unsubscribed or was removed between acceptance and sending: counted only, it has nobody to list. */
  unsubscribed: 'unsubscribed or removed after the notification was accepted',
  /**
   * A silent push (`contentAvailable`) to a browser. Browsers show every push as a notification (the Push API's
   * userVisibleOnly), so a browser has no silent push to receive.
   */
  silent_not_supported: 'a silent push: browsers show every push, so they get none',
  /** The subscriber had already received its channel's frequency cap of notifications in the cap's period. */
  frequency_capped: "the subscriber had reached its channel's frequency cap",
} as const;

export type SkipReason = keyof typeof SKIP_REASONS;

/** Skips with a row of their own in the notification's delivery results. */
export function isListedSkip(reason: SkipReason): boolean {
  return reason !== 'unsubscribed';
}
