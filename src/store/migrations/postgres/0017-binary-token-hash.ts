/**
 * `subscribers.token_hash` as the 32 bytes of the SHA-256 (BYTEA) instead of its 64 hex characters (TEXT): a smaller
 * key for the (channel_id, platform, token_hash) unique index that every registration and bulk import writes
 * (docs/performance.md, "Subscriber import"; the SQLite file says why). PostgreSQL rewrites the table and its indexes.
 */
export const statements = [
  `ALTER TABLE subscribers ALTER COLUMN token_hash TYPE BYTEA USING decode(token_hash, 'hex')`,
];
