import type { SqlTypes } from '../../migrate.ts';

/**
 * Audience (docs/api.md, "Subscribers and users"; "Targeting"):
 * - `notifications.skipped_count`: targeted subscribers that unsubscribed or were removed between acceptance and
 *   sending, so recipients = delivered + failed + skipped + pending always holds;
 * - `notifications.audience` and `live_activities.audience`: the targeted part of the channel as JSON
 *   ({externalIds} | {subscriberIds} | {tags}), null for the whole channel;
 * - `subscriber_tags`: a subscriber's tags, one row each, so all-of / any-of is plain SQL on both dialects;
 * - indexes for the lookups by external id (users, targeting) and by subscriber (a subscriber's failures, erasure).
 */
export const statements = (types: SqlTypes): string[] => [
  `ALTER TABLE notifications ADD COLUMN skipped_count INTEGER NOT NULL DEFAULT 0`,
  `ALTER TABLE notifications ADD COLUMN audience TEXT`,
  `ALTER TABLE live_activities ADD COLUMN audience TEXT`,
  `CREATE TABLE subscriber_tags (
    subscriber_id TEXT NOT NULL REFERENCES subscribers(id),
    tag TEXT NOT NULL,
    PRIMARY KEY (subscriber_id, tag)
  )${types.strict}`,
  `CREATE INDEX subscriber_tags_tag ON subscriber_tags (tag, subscriber_id)`,
  `CREATE INDEX subscribers_external_id ON subscribers (account_id, external_id)`,
  `CREATE INDEX delivery_failures_subscriber ON delivery_failures (subscriber_id, created_at)`,
];
