/**
 * Quiet hours (docs/api.md, "Quiet hours"):
 * - `channels.quiet_hours_start` and `quiet_hours_end`: "HH:MM" in each subscriber's time zone; both null for none;
 * - `notifications.ignore_quiet_hours`: 1 for a send that goes out inside them;
 * - `notifications.held_count`: recipients whose push waits for their quiet hours to end (part of `pending`).
 */
export const statements: string[] = [
  'ALTER TABLE channels ADD COLUMN quiet_hours_start TEXT',
  'ALTER TABLE channels ADD COLUMN quiet_hours_end TEXT',
  'ALTER TABLE notifications ADD COLUMN ignore_quiet_hours INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE notifications ADD COLUMN held_count INTEGER NOT NULL DEFAULT 0',
];
