/**
 * Web Push (SQLite): the instance's VAPID key pair (RFC 8292), one row. The public key is public (browsers subscribe
 * with it); the private key is sealed with the instance secret key (src/domain/secret-box.ts). See docs/web-push.md.
 */
export const statements = [
  `CREATE TABLE vapid_keys (
    id TEXT PRIMARY KEY,
    public_key TEXT NOT NULL,
    sealed_private_key TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT`,
];
