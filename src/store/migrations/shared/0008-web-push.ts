import type { SqlTypes } from '../../migrate.ts';

/**
 * Web Push: the instance's VAPID key pair (RFC 8292), one row. The public key is public (browsers subscribe
 * with it); the private key is sealed with the instance secret key (src/domain/secret-box.ts). See docs/web-push.md.
 */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE vapid_keys (
    id TEXT PRIMARY KEY,
    public_key TEXT NOT NULL,
    sealed_private_key TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL
  )${types.strict}`,
];
