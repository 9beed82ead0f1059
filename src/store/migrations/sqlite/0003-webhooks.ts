/**
 * Webhooks (SQLite): endpoints, one message per (event, endpoint), every attempt, and the relay mark on events.
 * See docs/webhooks.md for the design; the PostgreSQL file has the same tables.
 */
export const statements = [
  // The relay marks an event once its messages exist. Events recorded before webhooks existed had no endpoint to
  // go to, so they start relayed; the partial index keeps the relay's "what is left" query small however many
  // events accumulate.
  `ALTER TABLE events ADD COLUMN relayed_at INTEGER`,
  `UPDATE events SET relayed_at = created_at`,
  `CREATE INDEX events_unrelayed ON events (id) WHERE relayed_at IS NULL`,
  `CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    url TEXT NOT NULL,
    description TEXT,
    event_types TEXT NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expires_at INTEGER,
    status TEXT NOT NULL,
    disabled_reason TEXT,
    disabled_at INTEGER,
    failing_since INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT`,
  `CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, id)`,
  `CREATE TABLE webhook_messages (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    event_id TEXT REFERENCES events(id),
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempt_count INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    delivered_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (endpoint_id, event_id)
  ) STRICT`,
  `CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, id)`,
  `CREATE TABLE webhook_attempts (
    message_id TEXT NOT NULL REFERENCES webhook_messages(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    kind TEXT NOT NULL,
    url TEXT NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER NOT NULL,
    response_excerpt TEXT,
    error TEXT,
    attempted_at INTEGER NOT NULL,
    PRIMARY KEY (message_id, attempt)
  ) STRICT`,
];
