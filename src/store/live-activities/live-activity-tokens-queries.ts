import type { Kysely, Selectable } from 'kysely';
import type { Database, LiveActivityTokensTable } from '../schema.ts';

/**
 * The per-activity update tokens iOS devices report (POST /live-activities/{id}/tokens). A device's token for an
 * activity can change, and the old one must then no longer be used (docs/protocols.md 2.3), so there is one row per
 * (activity, subscriber) and a new report replaces it.
 */
export type LiveActivityTokenRow = Selectable<LiveActivityTokensTable>;

/** Stores the token; `created` is false when it replaced (or repeated) an earlier report of the same subscriber. */
export async function saveLiveActivityToken(
  trx: Kysely<Database>,
  input: { liveActivityId: string; subscriberId: string; token: string; now: number },
): Promise<{ row: LiveActivityTokenRow; created: boolean }> {
  const existing = await findLiveActivityToken(trx, input.liveActivityId, input.subscriberId);
  const row = await trx
    .insertInto('live_activity_tokens')
    .values({
      live_activity_id: input.liveActivityId,
      subscriber_id: input.subscriberId,
      token: input.token,
      created_at: input.now,
      updated_at: input.now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['live_activity_id', 'subscriber_id'])
        .doUpdateSet({ token: input.token, updated_at: input.now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, created: existing === undefined };
}

export async function findLiveActivityToken(
  db: Kysely<Database>,
  liveActivityId: string,
  subscriberId: string,
): Promise<LiveActivityTokenRow | undefined> {
  return (await findLiveActivityTokens(db, liveActivityId, [subscriberId]))[0];
}

export async function findLiveActivityTokens(
  db: Kysely<Database>,
  liveActivityId: string,
  subscriberIds: string[],
): Promise<LiveActivityTokenRow[]> {
  if (subscriberIds.length === 0) return [];
  return db
    .selectFrom('live_activity_tokens')
    .selectAll()
    .where('live_activity_id', '=', liveActivityId)
    .where('subscriber_id', 'in', subscriberIds)
    .execute();
}

/**
 * Forgets a token APNs called dead (410 once the activity ended on the device or its token rotated, docs/protocols.md
 * 2.3). Only that token: the subscriber stays subscribed. A token reported again in the meantime is kept.
 */
export async function dropLiveActivityToken(
  trx: Kysely<Database>,
  input: { liveActivityId: string; subscriberId: string; token: string },
): Promise<boolean> {
  const result = await trx
    .deleteFrom('live_activity_tokens')
    .where('live_activity_id', '=', input.liveActivityId)
    .where('subscriber_id', '=', input.subscriberId)
    .where('token', '=', input.token)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
