import type { SqlTypes } from '../../migrate.ts';

/**
 * Apps: an account's own iOS, Android and web credentials (docs/apps.md). Secrets (the .p8 key, the FCM
 * service account, the VAPID private key) are sealed with the instance secret key (src/domain/secret-box.ts); the
 * fingerprints beside them are what the API shows. A channel names its app (`channels.app_id`; NULL: the built-in
 * default app from CLARION_APNS_* / CLARION_FCM_*). An iOS subscriber keeps the APNs environment its token belongs to
 * (`subscribers.apns_environment`; NULL: not known yet, learned on the first push).
 */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE apps (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    apns_key_id TEXT,
    apns_team_id TEXT,
    apns_topic TEXT,
    apns_sealed_key TEXT,
    fcm_project_id TEXT,
    fcm_client_email TEXT,
    fcm_sealed_service_account TEXT,
    vapid_public_key TEXT NOT NULL,
    vapid_sealed_private_key TEXT NOT NULL,
    vapid_subject TEXT,
    credentials_status TEXT NOT NULL DEFAULT 'ok',
    credentials_error TEXT,
    credentials_failed_at ${types.timestamp},
    created_at ${types.timestamp} NOT NULL,
    updated_at ${types.timestamp} NOT NULL
  )${types.strict}`,
  `CREATE INDEX apps_account ON apps (account_id, id)`,
  `ALTER TABLE channels ADD COLUMN app_id TEXT REFERENCES apps(id)`,
  `ALTER TABLE subscribers ADD COLUMN apns_environment TEXT`,
];
