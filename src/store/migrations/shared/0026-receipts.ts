import type { SqlTypes } from '../../migrate.ts';

/**
 * Receipts (docs/engagement.md): what people did with a delivered push, reported by their devices.
 * - `accounts.receipts_enabled`: 1 (the default) puts a receipt in every push of the account's notifications; 0 none;
 * - `receipts`: one row per (notification, subscriber, event), which is what makes a repeated report count once; the
 *   action's id for `action`; no address, no user agent (docs/engagement.md, "What is stored"). Erased with the user;
 * - `notification_platform_stats` gains the unique subscribers who received, opened and dismissed the notification
 *   and who tapped one of its actions, per platform, counted in the transaction that records the receipt.
 */
export const statements = (types: SqlTypes): string[] => [
  'ALTER TABLE accounts ADD COLUMN receipts_enabled INTEGER NOT NULL DEFAULT 1',
  `CREATE TABLE receipts (
    notification_id TEXT NOT NULL,
    subscriber_id TEXT NOT NULL,
    event TEXT NOT NULL,
    action_id TEXT,
    created_at ${types.timestamp} NOT NULL,
    PRIMARY KEY (notification_id, subscriber_id, event)
  )${types.strict}`,
  'CREATE INDEX receipts_subscriber ON receipts (subscriber_id)',
  'ALTER TABLE notification_platform_stats ADD COLUMN received INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE notification_platform_stats ADD COLUMN opened INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE notification_platform_stats ADD COLUMN dismissed INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE notification_platform_stats ADD COLUMN actions INTEGER NOT NULL DEFAULT 0',
];
