import type { TemplateFields, TemplateName } from './live-activity-templates.ts';
import { liveActivityStateText } from './live-activity-text.ts';

/**
 * The alert of a Live Activity push (APNs `aps.alert`, docs/protocols.md 2.2): title, an optional body, and an optional
 * sound (a sound file in the app bundle, or "default"), which APNs takes inside the alert for Live Activities.
 */
export interface LiveActivityAlert {
  title: string;
  body?: string;
  sound?: string;
}

/**
 * `priority` on an update or end: `high` → APNs priority 10 (delivered at once, spends the device's Live Activity
 * budget), `low` → 5 (delivered when convenient, no budget). Without it, the event's own default (docs/protocols.md 2.4).
 */
export type LiveActivityPriority = 'high' | 'low';
export const liveActivityPriorities = ['high', 'low'] as const satisfies readonly LiveActivityPriority[];

/**
 * The alert a start carries when the caller gave none. APNs requires one on `event: start` (docs/protocols.md 2.2), and
 * it is what the user sees when the activity appears, so it says the same as the activity: its title, and a line
 * summing up the fields ("45 % · Packing", "Ajax 2 – 1 PSV (2nd half)", "Step 2 of 4 · On the way").
 * Pure; `fields` are already validated.
 */
export function defaultStartAlert(template: TemplateName, fields: TemplateFields): LiveActivityAlert {
  // The device's time zone is unknown here, so a timer's end time is left to the activity's own countdown.
  return { title: String(fields.title), body: liveActivityStateText(template, fields) };
}
