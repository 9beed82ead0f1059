import type { SqlTypes } from '../../migrate.ts';

/**
 * Relays (docs/live-activities.md, "Relays"): a sender that signs its webhooks instead of sending an API key (GitHub)
 * posts to a relay of one account's channel. `secret` is the relay's signing secret sealed with the instance key
 * (src/domain/secret-box.ts, context = the relay's id): verifying an HMAC needs the secret itself, not a hash of it.
 * A relay starts a stream's activity only once per key (a late delivery must not start a finished run again), so
 * whether a key was ever used is asked by the index on every activity started through a stream.
 */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE relays (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    channel_id TEXT NOT NULL REFERENCES channels(id),
    sender TEXT NOT NULL,
    name TEXT,
    secret TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL,
    last_used_at ${types.timestamp}
  )${types.strict}`,
  'CREATE INDEX relays_account ON relays (account_id, id)',
  `CREATE INDEX live_activities_stream_key ON live_activities (account_id, channel_id, stream_key)
    WHERE stream_key IS NOT NULL`,
];
