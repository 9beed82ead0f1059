/**
 * Live Activity streams (docs/live-activities.md, "Streams"): `live_activities.stream_key` is the caller's key of the
 * activity it started through POST /live-activities/streams/{key}, null for one started by id. While the activity is
 * active, no other activity of the account's channel has the key: the partial unique index makes two concurrent first
 * calls with one key start exactly one activity (the second finds the first and updates it).
 */
export const statements: string[] = [
  'ALTER TABLE live_activities ADD COLUMN stream_key TEXT',
  `CREATE UNIQUE INDEX live_activities_active_stream ON live_activities (account_id, channel_id, stream_key)
    WHERE stream_key IS NOT NULL AND status = 'active'`,
];
