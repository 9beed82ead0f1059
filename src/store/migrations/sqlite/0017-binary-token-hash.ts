/**
 * `subscribers.token_hash` as the 32 bytes of the SHA-256 (BLOB) instead of its 64 hex characters (TEXT): the
 * (channel_id, platform, token_hash) unique index is the costliest B-tree of a bulk import (~14.5 µs of SQLite CPU per
 * new row, written at a random position); halving the hash's part of its key saved ~1–2 µs of that, near the noise —
 * the cost is where rows land more than key length (bench/import-sqlite-cost.ts, docs/performance.md, "Subscriber import").
 * Every place that computes or compares the hash uses the bytes (src/domain/device-token.ts).
 *
 * A STRICT table cannot change a column's type, so the table is rebuilt the way SQLite documents
 * (https://www.sqlite.org/lang_altertable.html#otheralter): foreign keys off (tables referencing subscribers keep
 * naming it; with them on, DROP TABLE would delete their rows' parents), one transaction, copy with unhex(), swap,
 * indexes again, foreign keys back on. SQLite migrations run outside a transaction (Kysely's SQLite adapter has no
 * transactional DDL), so the BEGIN/COMMIT here make the rebuild all-or-nothing.
 */
export const statements = [
  `PRAGMA foreign_keys = OFF`,
  `BEGIN IMMEDIATE`,
  `CREATE TABLE subscribers_rebuilt (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    channel_id TEXT NOT NULL REFERENCES channels(id),
    platform TEXT NOT NULL,
    token TEXT NOT NULL,
    token_hash BLOB NOT NULL,
    push_to_start_token TEXT,
    timezone TEXT,
    locale TEXT,
    external_id TEXT,
    status TEXT NOT NULL,
    unsubscribe_reason TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    unsubscribed_at INTEGER,
    apns_environment TEXT,
    os_version TEXT,
    last_delivered_at INTEGER,
    UNIQUE (channel_id, platform, token_hash)
  ) STRICT`,
  `INSERT INTO subscribers_rebuilt
    SELECT id, account_id, channel_id, platform, token, unhex(token_hash), push_to_start_token, timezone, locale, external_id,
      status, unsubscribe_reason, created_at, updated_at, unsubscribed_at, apns_environment, os_version, last_delivered_at
    FROM subscribers ORDER BY rowid`,
  `DROP TABLE subscribers`,
  `ALTER TABLE subscribers_rebuilt RENAME TO subscribers`,
  `CREATE INDEX subscribers_dispatch ON subscribers (channel_id, status, id, platform, created_at, timezone)`,
  `CREATE INDEX subscribers_external_id ON subscribers (account_id, external_id)`,
  `COMMIT`,
  `PRAGMA foreign_keys = ON`,
];
