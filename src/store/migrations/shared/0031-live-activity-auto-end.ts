/**
 * Ending a Live Activity that hears nothing (docs/live-activities.md, "Staleness and auto-end"): the caller's
 * `endAfterSecondsWithoutUpdate` as milliseconds, and the `status` field it ends with (`endStatus`); null when not
 * asked.
 */
export const statements: string[] = [
  'ALTER TABLE live_activities ADD COLUMN auto_end_after_ms INTEGER',
  'ALTER TABLE live_activities ADD COLUMN auto_end_status TEXT',
];
