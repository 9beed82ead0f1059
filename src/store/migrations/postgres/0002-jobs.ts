/** The durable job queue and delivery bookkeeping (PostgreSQL). */
export const statements = [
  `CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    run_at BIGINT NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    lease_owner TEXT,
    lease_expires_at BIGINT,
    errors TEXT NOT NULL DEFAULT '[]',
    unique_key TEXT UNIQUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    finalized_at BIGINT
  )`,
  `CREATE INDEX jobs_available ON jobs (state, run_at, id)`,
  `CREATE INDEX jobs_lease ON jobs (state, lease_expires_at)`,
  `ALTER TABLE notifications ADD COLUMN targeted_count INTEGER`,
  `ALTER TABLE notifications ADD COLUMN dispatches_pending INTEGER NOT NULL DEFAULT 1`,
  `CREATE TABLE notification_platform_stats (
    notification_id TEXT NOT NULL REFERENCES notifications(id),
    platform TEXT NOT NULL,
    targeted INTEGER NOT NULL DEFAULT 0,
    delivered INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (notification_id, platform)
  )`,
  `CREATE TABLE delivery_failures (
    notification_id TEXT NOT NULL REFERENCES notifications(id),
    subscriber_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (notification_id, subscriber_id)
  )`,
];
