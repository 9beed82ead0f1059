import type { SqlTypes } from '../../migrate.ts';

/**
 * Scheduled Live Activity starts (docs/live-activities.md, "Scheduled starts"):
 * - `live_activities.send_at`: when a start accepted with `sendAt` goes out; null for a start sent at once.
 * - `live_activities.started_at`: when the activity started (its push-to-start went out): the 8 hours, the audience
 *   fixed at the start and the late joiners count from it. Null while the activity is `scheduled`, and for one
 *   `canceled` before it started; an activity from before scheduled starts started when it was created.
 * - `status` is free text: `scheduled` and `canceled` join `active` and `ended`.
 * - The stream key of a scheduled activity is held as an active one's is, so a stream call with it finds the
 *   scheduled activity (and updates it) instead of starting a second one; a cancel frees it.
 */
export const statements = (types: SqlTypes): string[] => [
  `ALTER TABLE live_activities ADD COLUMN send_at ${types.timestamp}`,
  `ALTER TABLE live_activities ADD COLUMN started_at ${types.timestamp}`,
  'UPDATE live_activities SET started_at = created_at',
  'DROP INDEX live_activities_active_stream',
  `CREATE UNIQUE INDEX live_activities_active_stream ON live_activities (account_id, channel_id, stream_key)
    WHERE stream_key IS NOT NULL AND status IN ('active', 'scheduled')`,
];
