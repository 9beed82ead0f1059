import { sql, type Kysely, type Selectable } from 'kysely';
import { findRowById } from '../find-row-by-id.ts';
import { LIVE_ACTIVITY_MAX_MS } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { Database, LiveActivitiesTable } from '../schema.ts';

export type LiveActivityRow = Selectable<LiveActivitiesTable>;
export type LiveActivityStatus = LiveActivityRow['status'];
export const liveActivityStatuses = [
  'scheduled',
  'active',
  'ended',
  'canceled',
] as const satisfies readonly LiveActivityStatus[];
export type LiveActivityDelivery = LiveActivityRow['delivery'];
export const liveActivityDeliveries = [
  'auto',
  'broadcast',
  'tokens',
] as const satisfies readonly LiveActivityDelivery[];

export async function insertLiveActivity(trx: Kysely<Database>, row: LiveActivityRow): Promise<void> {
  await trx.insertInto('live_activities').values(row).execute();
}

export function findLiveActivity(
  db: Kysely<Database>,
  accountId: string,
  id: string,
): Promise<LiveActivityRow | undefined> {
  return findRowById(db, 'live_activities', id, { accountId });
}

/** For the delivery jobs, which act for no particular caller. */
export function findLiveActivityById(db: Kysely<Database>, id: string): Promise<LiveActivityRow | undefined> {
  return findRowById(db, 'live_activities', id);
}

/**
 * Whether one of the channel's Live Activities still runs (its pushes belong to the channel's current app): active and
 * not yet past iOS's 8 hours (an expired one not yet swept counts as ended, as its view shows it).
 */
export async function hasRunningLiveActivity(db: Kysely<Database>, channelId: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('live_activities')
    .select('id')
    .where('channel_id', '=', channelId)
    .where('status', '=', 'active')
    .where('started_at', '>', now - LIVE_ACTIVITY_MAX_MS)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * `push_timestamp` advanced to the next event timestamp: the current millisecond, or one past the last when that is
 * not earlier (live-activity-lifecycle.ts nextPushTimestamp, the same rule; a value still in seconds is always
 * earlier). Done in the UPDATE itself so two concurrent events can never take the same value: PostgreSQL row-locks the
 * activity until the transaction ends, SQLite has one writer (BEGIN IMMEDIATE).
 */
function advancedTimestamp(now: number) {
  return sql<number>`case when push_timestamp >= ${now} then push_timestamp + 1 else ${now} end`;
}

/**
 * Starts a lifecycle event on an activity that is still active (not ended, and within its 8 hours): advances its
 * event timestamp and returns the row as it is now, locked for the rest of `trx`, so the fields merged from it cannot
 * be changed underneath. Undefined when it is not (or no longer) active: the caller answers 409.
 */
export async function claimLiveActivityEvent(
  trx: Kysely<Database>,
  input: { accountId: string; id: string; now: number },
): Promise<LiveActivityRow | undefined> {
  return trx
    .updateTable('live_activities')
    .set({ push_timestamp: advancedTimestamp(input.now), updated_at: input.now })
    .where('account_id', '=', input.accountId)
    .where('id', '=', input.id)
    .where('status', '=', 'active')
    .where('started_at', '>', input.now - LIVE_ACTIVITY_MAX_MS)
    .returningAll()
    .executeTakeFirst();
}

/** Writes the state an update or end changed, or an update of a scheduled activity (in the transaction that locked it). */
export async function saveLiveActivityState(trx: Kysely<Database>, row: LiveActivityRow): Promise<void> {
  await trx
    .updateTable('live_activities')
    .set({
      fields: row.fields,
      alert: row.alert,
      stale_at: row.stale_at,
      status: row.status,
      ended_at: row.ended_at,
      dismiss_at: row.dismiss_at,
      relevance_score: row.relevance_score,
      auto_end_after_ms: row.auto_end_after_ms,
      auto_end_status: row.auto_end_status,
    })
    .where('id', '=', row.id)
    .execute();
}

/**
 * Ends an activity whose 8 hours are over, as iOS itself does (docs/protocols.md 2.3): `ended_at` is the moment it
 * expired, not when this ran. Returns the ended row, or undefined when it was already ended (by a call, or by an
 * earlier run of the expiry job), so the expiry is recorded exactly once.
 */
export async function expireLiveActivity(
  trx: Kysely<Database>,
  input: { id: string; now: number },
): Promise<LiveActivityRow | undefined> {
  return trx
    .updateTable('live_activities')
    .set({
      status: 'ended',
      ended_at: sql<number>`started_at + ${LIVE_ACTIVITY_MAX_MS}`,
      push_timestamp: advancedTimestamp(input.now),
      updated_at: input.now,
    })
    .where('id', '=', input.id)
    .where('status', '=', 'active')
    .where('started_at', '<=', input.now - LIVE_ACTIVITY_MAX_MS)
    .returningAll()
    .executeTakeFirst();
}

export interface LiveActivityFilter {
  accountId: string;
  /** Only these channels (a scoped key, or a channelCode filter); null = all. */
  channelIds: string[] | null;
  /** As readers see it: an activity past its 8 hours is `ended` even before the expiry job has recorded it. */
  status: LiveActivityStatus | null;
  /** Newest first: return ids below this one. */
  before: string | null;
  limit: number;
  now: number;
}

/** Newest first, paged by id (ids sort by creation time). */
export async function listLiveActivities(db: Kysely<Database>, filter: LiveActivityFilter): Promise<LiveActivityRow[]> {
  if (filter.channelIds?.length === 0) return [];
  const expiredBefore = filter.now - LIVE_ACTIVITY_MAX_MS;
  let query = db.selectFrom('live_activities').selectAll().where('account_id', '=', filter.accountId);
  if (filter.channelIds) query = query.where('channel_id', 'in', filter.channelIds);
  if (filter.status === 'active') query = query.where('status', '=', 'active').where('started_at', '>', expiredBefore);
  if (filter.status === 'ended')
    query = query.where((eb) =>
      eb.or([eb('status', '=', 'ended'), eb.and([eb('status', '=', 'active'), eb('started_at', '<=', expiredBefore)])]),
    );
  if (filter.status === 'scheduled' || filter.status === 'canceled') query = query.where('status', '=', filter.status);
  if (filter.before) query = query.where('id', '<', filter.before);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

/**
 * The activity of a stream (POST /live-activities/streams/{key}) that is active or scheduled in the database: at most
 * one per account, channel and key (live_activities_active_stream). An active one may be past its 8 hours without the
 * expiry recorded yet.
 */
export async function findActiveStreamActivity(
  db: Kysely<Database>,
  input: { accountId: string; channelCode: string; streamKey: string },
): Promise<LiveActivityRow | undefined> {
  return db
    .selectFrom('live_activities')
    .selectAll()
    .where('account_id', '=', input.accountId)
    .where('channel_code', '=', input.channelCode)
    .where('stream_key', '=', input.streamKey)
    .where('status', 'in', ['active', 'scheduled'])
    .executeTakeFirst();
}

/** Whether any activity of the channel, active or ended, was started with `streamKey` (a relay starts a run once). */
export async function streamKeyWasUsed(
  db: Kysely<Database>,
  input: { accountId: string; channelId: string; streamKey: string },
): Promise<boolean> {
  const row = await db
    .selectFrom('live_activities')
    .select('id')
    .where('account_id', '=', input.accountId)
    .where('channel_id', '=', input.channelId)
    .where('stream_key', '=', input.streamKey)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Ends an activity that heard nothing since the event at `timestamp` (endAfterSecondsWithoutUpdate): only if that is
 * still its latest event and it is active, so a concurrent update or end wins. `fields`: its state with the end's
 * status. Returns the ended row, or undefined when something else happened first.
 */
export async function endInactiveLiveActivity(
  trx: Kysely<Database>,
  input: { id: string; timestamp: number; fields: string; now: number },
): Promise<LiveActivityRow | undefined> {
  return trx
    .updateTable('live_activities')
    .set({
      status: 'ended',
      ended_at: input.now,
      fields: input.fields,
      stale_at: null,
      push_timestamp: advancedTimestamp(input.now),
      updated_at: input.now,
    })
    .where('id', '=', input.id)
    .where('status', '=', 'active')
    .where('push_timestamp', '=', input.timestamp)
    .where('started_at', '>', input.now - LIVE_ACTIVITY_MAX_MS)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Locks a scheduled activity for a change of what it will start with (an update before its start), and returns it;
 * undefined when it is no longer scheduled (its start went out, or it was canceled, since the caller read it).
 */
export async function lockScheduledLiveActivity(
  trx: Kysely<Database>,
  input: { accountId: string; id: string; now: number },
): Promise<LiveActivityRow | undefined> {
  return trx
    .updateTable('live_activities')
    .set({ updated_at: input.now })
    .where('account_id', '=', input.accountId)
    .where('id', '=', input.id)
    .where('status', '=', 'scheduled')
    .returningAll()
    .executeTakeFirst();
}

/**
 * The scheduled start going out: `active` from `now`, with its start's event timestamp and recipient counts. Only
 * while it is still scheduled, so a start and a cancel that race leave exactly one outcome: undefined when the cancel
 * (or an earlier run of the start) came first.
 */
export async function markLiveActivityStarted(
  trx: Kysely<Database>,
  input: { id: string; now: number; recipientCount: number; broadcastCount: number },
): Promise<LiveActivityRow | undefined> {
  return trx
    .updateTable('live_activities')
    .set({
      status: 'active',
      started_at: input.now,
      push_timestamp: advancedTimestamp(input.now),
      recipient_count: input.recipientCount,
      broadcast_count: input.broadcastCount,
      updated_at: input.now,
    })
    .where('id', '=', input.id)
    .where('status', '=', 'scheduled')
    .returningAll()
    .executeTakeFirst();
}

/** Cancels a scheduled activity (its stream key is free again); undefined when it is no longer scheduled. */
export async function cancelScheduledLiveActivity(
  trx: Kysely<Database>,
  input: { accountId: string; id: string; now: number },
): Promise<LiveActivityRow | undefined> {
  return trx
    .updateTable('live_activities')
    .set({ status: 'canceled', updated_at: input.now })
    .where('account_id', '=', input.accountId)
    .where('id', '=', input.id)
    .where('status', '=', 'scheduled')
    .returningAll()
    .executeTakeFirst();
}
