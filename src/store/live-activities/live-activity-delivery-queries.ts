import type { Kysely } from 'kysely';
import { preparedQuery } from '../prepared-query.ts';
import type {
  Database,
  LiveActivityEventsTable,
  LiveActivityEventStatsTable,
  LiveActivityFailuresTable,
} from '../schema.ts';

/**
 * What each lifecycle event of a Live Activity reached (docs/live-activities.md, "Delivery stats"): the event is
 * recorded with the request that makes it; its dispatch counts the devices it targets in the transaction that
 * enqueues their batch; each send batch (and the one request of a broadcast) counts its outcomes, and lists its
 * failures, in the transaction that completes its job. So each device is counted once however often a job runs, and
 * targeted = delivered + failed + skipped + pending holds for every event, platform and mode.
 */

export type LiveActivityEventName = LiveActivityEventsTable['event'];
export type LiveActivityPlatform = LiveActivityEventStatsTable['platform'];
export type LiveActivityDeliveryMode = LiveActivityEventStatsTable['mode'];

/** Records an event in the transaction that accepts it (once per timestamp, which is unique per activity). */
export async function recordLiveActivityEvent(
  trx: Kysely<Database>,
  input: { liveActivityId: string; timestamp: number; event: LiveActivityEventName; now: number },
): Promise<void> {
  await trx
    .insertInto('live_activity_events')
    .values({
      live_activity_id: input.liveActivityId,
      push_timestamp: input.timestamp,
      event: input.event,
      created_at: input.now,
      dispatched_at: null,
    })
    .onConflict((conflict) => conflict.columns(['live_activity_id', 'push_timestamp']).doNothing())
    .execute();
}

/** The event's dispatch has enqueued every batch: what is not yet counted is pending, not yet targeted. */
export async function markLiveActivityEventDispatched(
  db: Kysely<Database>,
  input: { liveActivityId: string; timestamp: number; now: number },
): Promise<void> {
  await db
    .updateTable('live_activity_events')
    .set({ dispatched_at: input.now })
    .where('live_activity_id', '=', input.liveActivityId)
    .where('push_timestamp', '=', input.timestamp)
    .execute();
}

export interface SendCounts {
  targeted?: number;
  delivered?: number;
  failed?: number;
  skipped?: number;
}

/**
 * Adds to an event's counters on one platform and mode: one upsert, compiled once (src/store/prepared-query.ts), as
 * it runs in every send batch's transaction. `failureReason`: a broadcast's, kept as the last one given.
 */
export async function countLiveActivitySends(
  trx: Kysely<Database>,
  input: {
    liveActivityId: string;
    timestamp: number;
    platform: LiveActivityPlatform;
    mode: LiveActivityDeliveryMode;
    counts: SendCounts;
    failureReason?: string;
  },
): Promise<void> {
  const { targeted = 0, delivered = 0, failed = 0, skipped = 0 } = input.counts;
  if (targeted + delivered + failed + skipped === 0) return;
  await countSendsStatement(trx, {
    liveActivityId: input.liveActivityId,
    timestamp: input.timestamp,
    platform: input.platform,
    mode: input.mode,
    targeted,
    delivered,
    failed,
    skipped,
    failureReason: input.failureReason ?? null,
  });
}

const countSendsStatement = preparedQuery(
  (
    db,
    param,
    _values: {
      liveActivityId: string;
      timestamp: number;
      platform: LiveActivityPlatform;
      mode: LiveActivityDeliveryMode;
      targeted: number;
      delivered: number;
      failed: number;
      skipped: number;
      failureReason: string | null;
    },
  ) =>
    db
      .insertInto('live_activity_event_stats')
      .values({
        live_activity_id: param('liveActivityId'),
        push_timestamp: param('timestamp'),
        platform: param('platform'),
        mode: param('mode'),
        targeted: param('targeted'),
        delivered: param('delivered'),
        failed: param('failed'),
        skipped: param('skipped'),
        failure_reason: param('failureReason'),
      })
      .onConflict((conflict) =>
        conflict.columns(['live_activity_id', 'push_timestamp', 'platform', 'mode']).doUpdateSet((eb) => ({
          targeted: eb('live_activity_event_stats.targeted', '+', param<number>('targeted')),
          delivered: eb('live_activity_event_stats.delivered', '+', param<number>('delivered')),
          failed: eb('live_activity_event_stats.failed', '+', param<number>('failed')),
          skipped: eb('live_activity_event_stats.skipped', '+', param<number>('skipped')),
          failure_reason: eb.fn.coalesce(
            eb.val(param<string | null>('failureReason')),
            eb.ref('live_activity_event_stats.failure_reason'),
          ),
        })),
      ),
);

/** Lists the devices of one event whose push failed for good (once per device and event). */
export async function recordLiveActivityFailures(
  trx: Kysely<Database>,
  input: {
    liveActivityId: string;
    timestamp: number;
    failures: ReadonlyArray<{ subscriberId: string; platform: LiveActivityPlatform; reason: string }>;
    now: number;
  },
): Promise<void> {
  // A send batch holds at most SEND_BATCH_SIZE (500) devices: 6 parameters each stays under SQLite's 32,766.
  if (input.failures.length === 0) return;
  await trx
    .insertInto('live_activity_failures')
    .values(
      input.failures.map((failure) => ({
        live_activity_id: input.liveActivityId,
        push_timestamp: input.timestamp,
        subscriber_id: failure.subscriberId,
        platform: failure.platform,
        reason: failure.reason,
        created_at: input.now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['live_activity_id', 'push_timestamp', 'subscriber_id']).doNothing())
    .execute();
}

/** The latest event of an activity, with its counters per platform and mode (none before its dispatch counted any). */
export interface LatestLiveActivityEvent {
  event: LiveActivityEventName;
  timestamp: number;
  dispatchedAt: number | null;
  counters: Array<
    Pick<LiveActivityEventStatsTable, 'platform' | 'mode' | 'failure_reason'> & {
      targeted: number;
      delivered: number;
      failed: number;
      skipped: number;
    }
  >;
}

/** The latest event of each activity named: one query for a page of the list. */
export async function latestLiveActivityEvents(
  db: Kysely<Database>,
  liveActivityIds: readonly string[],
): Promise<Map<string, LatestLiveActivityEvent>> {
  const latest = new Map<string, LatestLiveActivityEvent>();
  if (liveActivityIds.length === 0) return latest;
  const rows = await db
    .selectFrom('live_activity_events as e')
    .leftJoin('live_activity_event_stats as s', (join) =>
      join.onRef('s.live_activity_id', '=', 'e.live_activity_id').onRef('s.push_timestamp', '=', 'e.push_timestamp'),
    )
    .select([
      'e.live_activity_id',
      'e.push_timestamp',
      'e.event',
      'e.dispatched_at',
      's.platform',
      's.mode',
      's.targeted',
      's.delivered',
      's.failed',
      's.skipped',
      's.failure_reason',
    ])
    .where('e.live_activity_id', 'in', liveActivityIds)
    .where((eb) =>
      eb(
        'e.push_timestamp',
        '=',
        eb
          .selectFrom('live_activity_events as later')
          .select((inner) => inner.fn.max('later.push_timestamp').as('latest'))
          .whereRef('later.live_activity_id', '=', 'e.live_activity_id'),
      ),
    )
    .orderBy('s.platform')
    .orderBy('s.mode')
    .execute();
  for (const row of rows) {
    let event = latest.get(row.live_activity_id);
    if (!event) {
      event = {
        event: row.event,
        timestamp: Number(row.push_timestamp),
        dispatchedAt: row.dispatched_at === null ? null : Number(row.dispatched_at),
        counters: [],
      };
      latest.set(row.live_activity_id, event);
    }
    if (row.platform === null || row.mode === null) continue;
    event.counters.push({
      platform: row.platform,
      mode: row.mode,
      targeted: Number(row.targeted),
      delivered: Number(row.delivered),
      failed: Number(row.failed),
      skipped: Number(row.skipped),
      failure_reason: row.failure_reason,
    });
  }
  return latest;
}

/** One page of an event's failed devices, by subscriber id. */
export async function listLiveActivityFailures(
  db: Kysely<Database>,
  input: { liveActivityId: string; timestamp: number; after: string | null; limit: number },
): Promise<Array<Pick<LiveActivityFailuresTable, 'subscriber_id' | 'platform' | 'reason' | 'created_at'>>> {
  let query = db
    .selectFrom('live_activity_failures')
    .select(['subscriber_id', 'platform', 'reason', 'created_at'])
    .where('live_activity_id', '=', input.liveActivityId)
    .where('push_timestamp', '=', input.timestamp);
  if (input.after) query = query.where('subscriber_id', '>', input.after);
  return query.orderBy('subscriber_id').limit(input.limit).execute();
}
