/**
 * The dispatch pages a channel's active subscribers by id and needs each one's platform, creation time and time zone
 * (deliveries-queries.ts pageDispatchTargets): with those INCLUDEd, a page is an index-only scan instead of one heap
 * fetch per subscriber (bench/fanout-db-time.ts). The key columns are the old index's, so every query that
 * used that one uses this one.
 */
export const statements = [
  `CREATE INDEX subscribers_dispatch ON subscribers (channel_id, status, id) INCLUDE (platform, created_at, timezone)`,
  `DROP INDEX subscribers_channel_status`,
];
