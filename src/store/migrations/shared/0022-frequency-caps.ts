import type { SqlTypes } from '../../migrate.ts';

/**
 * Frequency caps (docs/api.md, "Frequency caps"):
 * - `channels.frequency_cap_count` and `frequency_cap_period_seconds`: at most that many notifications of the channel
 *   per subscriber in any rolling period of that length; both null for none;
 * - `notifications.ignore_frequency_cap`: 1 for a send that passes the cap (and still counts towards it);
 * - `frequency_cap_deliveries`: the notifications delivered to each subscriber of a capped channel, one row per
 *   (subscriber, notification), kept for the cap's period. Written only for capped channels, so an uncapped fan-out
 *   writes nothing more.
 */
export const statements = (types: SqlTypes): string[] => [
  'ALTER TABLE channels ADD COLUMN frequency_cap_count INTEGER',
  'ALTER TABLE channels ADD COLUMN frequency_cap_period_seconds INTEGER',
  'ALTER TABLE notifications ADD COLUMN ignore_frequency_cap INTEGER NOT NULL DEFAULT 0',
  `CREATE TABLE frequency_cap_deliveries (
    subscriber_id TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    delivered_at ${types.timestamp} NOT NULL,
    PRIMARY KEY (subscriber_id, notification_id)
  )${types.strict}`,
  'CREATE INDEX frequency_cap_deliveries_recent ON frequency_cap_deliveries (subscriber_id, delivered_at)',
];
