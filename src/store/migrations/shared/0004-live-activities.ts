import type { SqlTypes } from '../../migrate.ts';

/**
 * Live Activity delivery: the last APNs `aps.timestamp` sent per activity (epoch seconds; every lifecycle
 * push takes a strictly greater one, docs/protocols.md 2.2), the per-activity update tokens iOS devices report, one per
 * subscriber and activity (a newer report replaces the older token, docs/protocols.md 2.3), and an index for listing an
 * activity channel's activities.
 */
export const statements = (types: SqlTypes): string[] => [
  `ALTER TABLE live_activities ADD COLUMN push_timestamp ${types.timestamp} NOT NULL DEFAULT 0`,
  `CREATE INDEX live_activities_channel ON live_activities (channel_id, id)`,
  `CREATE TABLE live_activity_tokens (
    live_activity_id TEXT NOT NULL REFERENCES live_activities(id),
    subscriber_id TEXT NOT NULL REFERENCES subscribers(id),
    token TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL,
    updated_at ${types.timestamp} NOT NULL,
    PRIMARY KEY (live_activity_id, subscriber_id)
  )${types.strict}`,
];
