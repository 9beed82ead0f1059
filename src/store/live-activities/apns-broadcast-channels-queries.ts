import type { Kysely } from 'kysely';
import { LIVE_ACTIVITY_MAX_MS } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { ApnsBroadcastChannelsTable, Database } from '../schema.ts';

/**
 * The APNs broadcast channels Clarion created, until they are deleted at APNs. Apple keeps a channel until it is
 * deleted and allows 10,000 per app and environment (docs/protocols.md 2.5), so each one is recorded the moment it
 * exists and marked deleted only once APNs has let it go; the sweeper (live-activity-channel-jobs.ts) deletes
 * what a crash left behind.
 */
export type ApnsBroadcastChannelRow = ApnsBroadcastChannelsTable;

/**
 * Records a channel for an activity and gives the activity that channel, unless the activity already has one (a
 * dispatch that ran twice): then the new channel is recorded without an activity, for the caller to delete. Returns
 * the channel the activity uses.
 */
export async function attachBroadcastChannel(
  trx: Kysely<Database>,
  input: {
    liveActivityId: string;
    channelId: string;
    environment: 'production' | 'sandbox';
    topic: string;
    now: number;
  },
): Promise<string> {
  const updated = await trx
    .updateTable('live_activities')
    .set({ apns_channel_id: input.channelId })
    .where('id', '=', input.liveActivityId)
    .where('apns_channel_id', 'is', null)
    .executeTakeFirst();
  const attached = Number(updated.numUpdatedRows) > 0;
  await trx
    .insertInto('apns_broadcast_channels')
    .values({
      channel_id: input.channelId,
      live_activity_id: attached ? input.liveActivityId : null,
      environment: input.environment,
      topic: input.topic,
      created_at: input.now,
      deleted_at: null,
    })
    .onConflict((conflict) =>
      conflict.column('channel_id').doUpdateSet({ live_activity_id: attached ? input.liveActivityId : null }),
    )
    .execute();
  if (attached) return input.channelId;
  const activity = await trx
    .selectFrom('live_activities')
    .select('apns_channel_id')
    .where('id', '=', input.liveActivityId)
    .executeTakeFirstOrThrow();
  return activity.apns_channel_id!;
}

/** Records an id APNs listed that Clarion has no row for (a create whose answer a crash lost), first seen `now`. */
export async function recordUnknownBroadcastChannels(
  db: Kysely<Database>,
  input: { channelIds: string[]; environment: 'production' | 'sandbox'; topic: string; now: number },
): Promise<void> {
  if (input.channelIds.length === 0) return;
  await db
    .insertInto('apns_broadcast_channels')
    .values(
      input.channelIds.map((channelId) => ({
        channel_id: channelId,
        live_activity_id: null,
        environment: input.environment,
        topic: input.topic,
        created_at: input.now,
        deleted_at: null,
      })),
    )
    .onConflict((conflict) => conflict.column('channel_id').doNothing())
    .execute();
}

export async function knownBroadcastChannelIds(db: Kysely<Database>, channelIds: string[]): Promise<Set<string>> {
  if (channelIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('apns_broadcast_channels')
    .select('channel_id')
    .where('channel_id', 'in', channelIds)
    .execute();
  return new Set(rows.map((row) => row.channel_id));
}

/**
 * Channels no activity needs any more, oldest first: their activity ended (or passed its 8 hours), or they have no
 * activity and were recorded more than `orphanGraceMs` ago (a dispatch still between create and record is younger).
 */
export async function findSweepableBroadcastChannels(
  db: Kysely<Database>,
  input: { environment: 'production' | 'sandbox'; topic: string; now: number; orphanGraceMs: number; limit: number },
): Promise<ApnsBroadcastChannelRow[]> {
  return db
    .selectFrom('apns_broadcast_channels')
    .leftJoin('live_activities', 'live_activities.id', 'apns_broadcast_channels.live_activity_id')
    .selectAll('apns_broadcast_channels')
    .where('apns_broadcast_channels.deleted_at', 'is', null)
    .where('apns_broadcast_channels.environment', '=', input.environment)
    .where('apns_broadcast_channels.topic', '=', input.topic)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('apns_broadcast_channels.live_activity_id', 'is', null),
          eb('apns_broadcast_channels.created_at', '<=', input.now - input.orphanGraceMs),
        ]),
        eb('live_activities.status', '=', 'ended'),
        eb('live_activities.started_at', '<=', input.now - LIVE_ACTIVITY_MAX_MS),
      ]),
    )
    .orderBy('apns_broadcast_channels.created_at')
    .limit(input.limit)
    .execute();
}

export async function markBroadcastChannelDeleted(
  db: Kysely<Database>,
  input: { channelId: string; now: number },
): Promise<void> {
  await db
    .updateTable('apns_broadcast_channels')
    .set({ deleted_at: input.now })
    .where('channel_id', '=', input.channelId)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Channels recorded and not yet deleted, for the limit check before creating one more. */
export async function countLiveBroadcastChannels(
  db: Kysely<Database>,
  input: { environment: 'production' | 'sandbox'; topic: string },
): Promise<number> {
  const row = await db
    .selectFrom('apns_broadcast_channels')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('deleted_at', 'is', null)
    .where('environment', '=', input.environment)
    .where('topic', '=', input.topic)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * The app whose credentials created a channel: its activity's channel's app (docs/apps.md); null for the built-in
 * app, or when the channel has no activity any more (the sweeper then finds it by its topic).
 */
export async function appIdOfBroadcastChannel(db: Kysely<Database>, channelId: string): Promise<string | null> {
  const row = await db
    .selectFrom('apns_broadcast_channels')
    .innerJoin('live_activities', 'live_activities.id', 'apns_broadcast_channels.live_activity_id')
    .innerJoin('channels', 'channels.id', 'live_activities.channel_id')
    .select('channels.app_id')
    .where('apns_broadcast_channels.channel_id', '=', channelId)
    .executeTakeFirst();
  return row?.app_id ?? null;
}

/** The apps with iOS credentials whose bundle id has channels recorded (deleted or not): what the sweeper visits. */
export async function appIdsWithBroadcastChannels(db: Kysely<Database>): Promise<string[]> {
  const topics = (await db.selectFrom('apns_broadcast_channels').select('topic').distinct().execute()).map(
    (row) => row.topic,
  );
  if (topics.length === 0) return [];
  const rows = await db
    .selectFrom('apps')
    .select('id')
    .where('apns_sealed_key', 'is not', null)
    .where('apns_topic', 'in', topics)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}
