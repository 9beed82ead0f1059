import type { TemplateFields, TemplateName } from './live-activity-templates.ts';
import { liveActivityStateText } from './live-activity-text.ts';

/** The alert of a Live Activity push (APNs `aps.alert`, docs/protocols.md 2.2): title, and an optional body. */
export interface LiveActivityAlert {
  title: string;
  body?: string;
}

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
