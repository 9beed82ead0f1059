import {
  alertFor,
  everyAlertVariant,
  type LiveActivityAlert,
  type LiveActivityPriority,
} from '../../domain/live-activities/live-activity-alert.ts';
import type { TemplateFields, TemplateName } from '../../domain/live-activities/live-activity-templates.ts';

export type LiveActivityEvent = 'start' | 'update' | 'end';

/**
 * One lifecycle event of a Live Activity as every platform's payload builder sees it: a snapshot taken in the
 * transaction that accepted the event, carried by its jobs, so a push sent late still says what was true then (and
 * its `timestamp` lets the device drop it if something newer already arrived).
 */
export interface LiveActivityPush {
  activityId: string;
  template: TemplateName;
  event: LiveActivityEvent;
  /** When the event was made: epoch ms, strictly increasing per activity (live-activity-lifecycle.ts nextPushTimestamp). */
  timestamp: number;
  /** The template's fields after this event: APNs `content-state`. */
  fields: TemplateFields;
  /** Start: always set (APNs requires one). Update and end: set when the caller gave one, else null (silent). */
  alert: LiveActivityAlert | null;
  /** The caller's `priority` on an update or end; null = the event's default (10, or 5 for a silent update). */
  priority: LiveActivityPriority | null;
  /** Epoch ms the content goes stale (`stale-date`), or null. */
  staleAt: number | null;
  /** End only: epoch ms the ended activity leaves the Lock Screen (`dismissal-date`), or null for the system's default. */
  dismissAt: number | null;
  relevanceScore: number | null;
  /** Epoch ms iOS ends the activity by itself (start + 8 h): no push is worth storing past it. */
  expiresAt: number;
  /**
   * Start only: the APNs broadcast channel the started activity subscribes to (`input-push-channel`) instead of
   * minting an update token; set per device by the send job for the broadcast part of the audience (iOS 18+).
   */
  inputPushChannel?: string | null;
  /**
   * The device's receipt (domain/receipt.ts mintLiveActivityReceipt) for a push it is shown (one with an alert), set
   * per device by the send job when the account keeps receipts; none on a broadcast, one payload for every device.
   */
  receipt?: string;
}

/**
 * The push as one device gets it: its alert in the language that best matches the subscriber's `locale`
 * (live-activity-alert.ts alertFor), without the other languages. A broadcast, one payload for every device, takes the
 * alert's own text (`locale` null).
 */
export function localizedPush(push: LiveActivityPush, locale: string | null): LiveActivityPush {
  return push.alert?.localizations ? { ...push, alert: alertFor(push.alert, locale) } : push;
}

/**
 * The push with its alert's own text (tag null) and with each localized variant: what the payload-size check must fit.
 */
export function everyPushVariant(push: LiveActivityPush): Array<{ tag: string | null; push: LiveActivityPush }> {
  if (!push.alert) return [{ tag: null, push }];
  return everyAlertVariant(push.alert).map(({ tag, alert }) => ({ tag, push: { ...push, alert } }));
}
