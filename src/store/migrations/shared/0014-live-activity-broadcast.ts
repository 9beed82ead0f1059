import type { SqlTypes } from '../../migrate.ts';

/**
 * Live Activities at scale, docs/live-activities.md:
 * - `push_to_start_tokens`: iOS issues one push-to-start token per ActivityAttributes type, so a device reports one per
 *   template. `subscribers.push_to_start_token` stays what it was: the token reported without a template, which serves
 *   every template the device has no token of its own for, as every token did before; existing tokens are exactly
 *   those, so no row moves.
 * - `subscribers.os_version`: the iOS version the app reported ("18.2"), which decides broadcast or per-token delivery.
 * - `live_activities.delivery` (the mode asked for: auto, broadcast, tokens; existing activities were per token),
 *   `apns_channel_id` (the APNs broadcast channel, once created) and `broadcast_count` (iOS devices started on it).
 * - `apns_broadcast_channels`: every channel Clarion created at APNs, until it is deleted there, so none outlives its
 *   activity even when a process dies in between (the sweeper reads it).
 */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE push_to_start_tokens (
    subscriber_id TEXT NOT NULL REFERENCES subscribers(id),
    template TEXT NOT NULL,
    token TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL,
    updated_at ${types.timestamp} NOT NULL,
    PRIMARY KEY (subscriber_id, template)
  )${types.strict}`,
  `ALTER TABLE subscribers ADD COLUMN os_version TEXT`,
  `ALTER TABLE live_activities ADD COLUMN delivery TEXT NOT NULL DEFAULT 'tokens'`,
  `ALTER TABLE live_activities ADD COLUMN apns_channel_id TEXT`,
  `ALTER TABLE live_activities ADD COLUMN broadcast_count INTEGER NOT NULL DEFAULT 0`,
  `CREATE TABLE apns_broadcast_channels (
    channel_id TEXT PRIMARY KEY,
    live_activity_id TEXT REFERENCES live_activities(id),
    environment TEXT NOT NULL,
    topic TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL,
    deleted_at ${types.timestamp}
  )${types.strict}`,
  `CREATE INDEX apns_broadcast_channels_live ON apns_broadcast_channels (deleted_at, created_at)`,
];
