import type { SqlTypes } from '../../migrate.ts';

/**
 * What each Live Activity event reached (docs/live-activities.md, "Delivery stats"):
 * - `live_activity_events`: one row per lifecycle event (start, update, end, the 8-hour end), written in the
 *   transaction that accepts it; `dispatched_at` is set once its dispatch has enqueued every batch;
 * - `live_activity_event_stats`: per event, platform and mode (`tokens`: one request per device; `broadcast`: one
 *   request on the APNs channel for every device on it), the devices targeted and what became of them, counted in
 *   the transactions that enqueue and settle the sends; `failure_reason`: why a broadcast failed;
 * - `live_activity_failures`: per event, each device whose push failed for good and why (erased with its user).
 */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE live_activity_events (
    live_activity_id TEXT NOT NULL REFERENCES live_activities(id),
    push_timestamp ${types.timestamp} NOT NULL,
    event TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL,
    dispatched_at ${types.timestamp},
    PRIMARY KEY (live_activity_id, push_timestamp)
  )${types.strict}`,
  `CREATE TABLE live_activity_event_stats (
    live_activity_id TEXT NOT NULL,
    push_timestamp ${types.timestamp} NOT NULL,
    platform TEXT NOT NULL,
    mode TEXT NOT NULL,
    targeted INTEGER NOT NULL DEFAULT 0,
    delivered INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0,
    failure_reason TEXT,
    PRIMARY KEY (live_activity_id, push_timestamp, platform, mode)
  )${types.strict}`,
  `CREATE TABLE live_activity_failures (
    live_activity_id TEXT NOT NULL,
    push_timestamp ${types.timestamp} NOT NULL,
    subscriber_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL,
    PRIMARY KEY (live_activity_id, push_timestamp, subscriber_id)
  )${types.strict}`,
  'CREATE INDEX live_activity_failures_subscriber ON live_activity_failures (subscriber_id)',
];
