import type { SqlTypes } from '../../migrate.ts';

/** Dashboard sign-in: sessions (only a hash of each token is stored) and the sign-in attempt log that rate-limits it. */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL REFERENCES users(id),
    account_id TEXT NOT NULL REFERENCES accounts(id),
    created_at ${types.timestamp} NOT NULL,
    last_seen_at ${types.timestamp} NOT NULL,
    expires_at ${types.timestamp} NOT NULL
  )${types.strict}`,
  `CREATE INDEX sessions_user ON sessions (user_id)`,
  `CREATE INDEX sessions_expires ON sessions (expires_at)`,
  `CREATE TABLE signin_attempts (
    kind TEXT NOT NULL,
    email_hash TEXT NOT NULL,
    ip TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL
  )${types.strict}`,
  `CREATE INDEX signin_attempts_email ON signin_attempts (email_hash, created_at)`,
  `CREATE INDEX signin_attempts_ip ON signin_attempts (ip, created_at)`,
  `CREATE INDEX signin_attempts_created ON signin_attempts (created_at)`,
];
