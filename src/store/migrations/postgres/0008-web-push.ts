/**
 * Web Push (PostgreSQL): the instance's VAPID key pair (RFC 8292), one row. The public key is public (browsers
 * subscribe with it); the private key is sealed with the instance secret key (src/domain/secret-box.ts). See
 * docs/web-push.md; the SQLite file has the same table.
 */
export const statements = [
  `CREATE TABLE vapid_keys (
    id TEXT PRIMARY KEY,
    public_key TEXT NOT NULL,
    sealed_private_key TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
];
