/**
 * The dispatch pages a channel's active subscribers by id and needs each one's platform, creation time and time zone
 * (deliveries-queries.ts pageDispatchTargets). With those in the index the page is read from the index alone: before,
 * every subscriber of a page cost a lookup of its table row, ~7 µs each once the table outgrew SQLite's page cache —
 * 7 ms per page of 1,000, the largest database cost of a fan-out (bench/fanout-db-time.ts). The new index
 * starts with the old one's columns, so every query that used that one uses this one.
 */
export const statements = [
  `CREATE INDEX subscribers_dispatch ON subscribers (channel_id, status, id, platform, created_at, timezone)`,
  `DROP INDEX subscribers_channel_status`,
];
