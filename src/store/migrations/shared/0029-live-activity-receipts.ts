import type { SqlTypes } from '../../migrate.ts';

/**
 * Receipts of Live Activities (docs/engagement.md, "Live Activities"): a push of an activity that a device shows (one
 * with an alert) carries a receipt bound to the activity and the subscriber.
 * - `live_activity_receipts`: one row per (activity, subscriber, event), what makes a repeated report count once, as
 *   `receipts` does for notifications; no address, no user agent; erased with the user, pruned with the retention;
 * - `live_activities` gains the unique subscribers who received, opened and dismissed it and who tapped an action,
 *   counted in the transaction that records the receipt.
 */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE live_activity_receipts (
    live_activity_id TEXT NOT NULL,
    subscriber_id TEXT NOT NULL,
    event TEXT NOT NULL,
    action_id TEXT,
    created_at ${types.timestamp} NOT NULL,
    PRIMARY KEY (live_activity_id, subscriber_id, event)
  )${types.strict}`,
  'CREATE INDEX live_activity_receipts_subscriber ON live_activity_receipts (subscriber_id)',
  'ALTER TABLE live_activities ADD COLUMN received_count INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE live_activities ADD COLUMN opened_count INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE live_activities ADD COLUMN dismissed_count INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE live_activities ADD COLUMN actions_count INTEGER NOT NULL DEFAULT 0',
];
