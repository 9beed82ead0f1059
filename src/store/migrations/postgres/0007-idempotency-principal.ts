/**
 * Idempotency-Keys per caller (docs/api.md, Idempotency): the API key, or the dashboard user, that sent the request,
 * within its account (PostgreSQL). The old records cannot be told apart by caller, and their bodies may hold secrets
 * shown once, so they are dropped rather than carried over: the cost is that a request which succeeded just before
 * the upgrade runs again if it is retried after it. `principal_id` defaults to '' so that a process of the previous
 * version still writing during a rolling upgrade stores records that no caller of this version matches.
 */
export const statements = [
  `DROP TABLE idempotency_keys`,
  `CREATE TABLE idempotency_keys (
    account_id TEXT NOT NULL REFERENCES accounts(id),
    principal_id TEXT NOT NULL DEFAULT '',
    key TEXT NOT NULL,
    operation TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status_code INTEGER,
    response_body TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, principal_id, key)
  )`,
];
