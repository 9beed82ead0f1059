import type { TemplateFields, TemplateName } from '../live-activities/live-activity-templates.ts';

/**
 * What one item of a sender's webhook (an Alertmanager alert, a GitHub workflow run or job) asks of its stream key's
 * Live Activity (docs/live-activities.md, "Relays"). Pure data: src/http/endpoints/relays/ carries it out with the
 * stream driver.
 */
export interface RelayStep {
  /** The stream key: the sender's own id for the alert or run, prefixed with the sender's name. */
  key: string;
  /** The activity to start when none is active with the key; null: this item never starts one. */
  start: { template: TemplateName; fields: TemplateFields } | null;
  /**
   * Start only if the key never had an activity: a late or redelivered webhook of a run that already finished must
   * not start it again. False where the same key legitimately comes back (an alert that fires again).
   */
  startOnce: boolean;
  /** What to do to the active activity: update or end it with these fields (merged); null: leave it. */
  change: { event: 'update' | 'end'; fields: TemplateFields } | null;
}

/** `text` cut to `max` characters, with an ellipsis when cut: a sender's text has no length limit, a field has. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text.trim());
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}
