import { sql, type Kysely } from 'kysely';
import type { Audience } from '../domain/audience.ts';
import type { Platform } from '../domain/device-token.ts';
import { isListedSkip, type SkipReason } from '../domain/skip-reasons.ts';
import { withAudience } from './audience-filter.ts';
import type { NotificationRow } from './notifications-queries.ts';
import { preparedQuery, type Param } from './prepared-query.ts';
import type { Database } from './schema.ts';

/**
 * Delivery bookkeeping of a notification: which subscribers a dispatch targets, per-platform counters, the
 * per-subscriber failures, and the one transition to `sent`/`failed` when every targeted subscriber has an outcome.
 */

export interface DispatchTarget {
  id: string;
  platform: Platform;
}

/**
 * One page of a channel's active subscribers, by id. Only subscribers that existed when the notification was
 * accepted are targeted, so the count matches `recipientCount` unless some unsubscribed in between. A targeted send
 * pages only its audience (audience-filter.ts), with the same rule as its recipient count.
 */
export async function pageDispatchTargets(
  db: Kysely<Database>,
  input: {
    channelId: string;
    createdAtOrBefore: number;
    timezone?: string | null | undefined;
    audience?: Audience | null;
    after: string | null;
    limit: number;
  },
): Promise<DispatchTarget[]> {
  const values: PageValues = {
    channelId: input.channelId,
    createdAtOrBefore: input.createdAtOrBefore,
    timezone: input.timezone,
    after: input.after,
    limit: input.limit,
  };
  const audience = input.audience ?? null;
  // An audience's lists and tags change the statement's text with every send: built anew each time.
  if (audience !== null)
    return withAudience(
      pageQuery(db, (name) => values[name as keyof PageValues] as never, values),
      audience,
    ).execute();
  return channelPageQuery(db, values);
}

type PageValues = {
  channelId: string;
  createdAtOrBefore: number;
  timezone?: string | null | undefined;
  after: string | null;
  limit: number;
};

function pageQuery(db: Kysely<Database>, param: Param, values: PageValues) {
  let query = db
    .selectFrom('subscribers')
    .select(['id', 'platform'])
    .where('channel_id', '=', param<string>('channelId'))
    .where('status', '=', 'active')
    .where('created_at', '<=', param<number>('createdAtOrBefore'));
  if (values.timezone === null) query = query.where('timezone', 'is', null);
  else if (values.timezone !== undefined) query = query.where('timezone', '=', param<string>('timezone'));
  if (values.after) query = query.where('id', '>', param<string>('after'));
  return query.orderBy('id').limit(param<number>('limit'));
}

/** A page of the whole channel (or of one time zone): every dispatch's first read, compiled once per shape. */
const channelPageQuery = preparedQuery(
  pageQuery,
  (values) =>
    `${values.timezone === undefined ? 'any zone' : values.timezone === null ? 'no zone' : 'zone'}:${values.after ? 'after' : 'first'}`,
);

/**
 * Adds to a notification's per-platform counters: one upsert per platform, compiled once (src/store/prepared-query.ts)
 * and a named statement on PostgreSQL, as are the other statements of a small notification below: they run in the
 * dispatch's and each send batch's transaction. Measured (docs/performance.md, "Latency to first push"): building them with Kysely was
 * 17 % of the PostgreSQL worker's CPU, 3 % once compiled; PostgreSQL's own CPU per notification fell 30–39 %.
 */
async function bumpPlatformStats(
  trx: Kysely<Database>,
  notificationId: string,
  platform: Platform,
  counts: { targeted?: number; delivered?: number; failed?: number },
): Promise<void> {
  const targeted = counts.targeted ?? 0;
  const delivered = counts.delivered ?? 0;
  const failed = counts.failed ?? 0;
  if (targeted + delivered + failed === 0) return;
  await bumpPlatformStatsStatement(trx, { notificationId, platform, targeted, delivered, failed });
}

const bumpPlatformStatsStatement = preparedQuery(
  (
    db,
    param,
    _values: { notificationId: string; platform: Platform; targeted: number; delivered: number; failed: number },
  ) =>
    db
      .insertInto('notification_platform_stats')
      .values({
        notification_id: param('notificationId'),
        platform: param('platform'),
        targeted: param('targeted'),
        delivered: param('delivered'),
        failed: param('failed'),
      })
      .onConflict((conflict) =>
        conflict.columns(['notification_id', 'platform']).doUpdateSet((eb) => ({
          targeted: eb('notification_platform_stats.targeted', '+', param<number>('targeted')),
          delivered: eb('notification_platform_stats.delivered', '+', param<number>('delivered')),
          failed: eb('notification_platform_stats.failed', '+', param<number>('failed')),
        })),
      ),
);

/**
 * The status of a notification whose dispatch has committed a page or finished: queued and scheduled become
 * `sending`, anything else (a partly canceled local-time notification) stays. Folded into the dispatch's own UPDATEs
 * of the row rather than a statement of its own before them (one statement and, on SQLite, one commit fewer per
 * notification: docs/performance.md, "Latency to first push"); the send jobs that need `sending` commit in the same transaction.
 */
const SENDING_ONCE_DISPATCHED = sql<
  NotificationRow['status']
>`CASE WHEN status IN ('queued', 'scheduled') THEN 'sending' ELSE status END`;

/**
 * Records one dispatched page's per-platform targeted counts and marks the notification sending, the notification
 * row first (lock order as in recordBatchOutcomes). The dispatch's last page (`last`, possibly empty: an empty
 * audience) also counts the dispatch finished, in the same UPDATE of the row: one statement fewer than a status
 * update and a finishing update (docs/performance.md, "Latency to first push"). Returns true when that was the last dispatch
 * pending (local-time delivery has one per time zone): the number targeted is then to be fixed (fixTargetedCount).
 */
export async function recordDispatchedPage(
  trx: Kysely<Database>,
  input: { notificationId: string; targeted: Map<Platform, number>; now: number; last: boolean },
): Promise<boolean> {
  const { notificationId, targeted, now } = input;
  let allFinished = false;
  if (input.last) {
    const [pending] = await finishDispatchStatement(trx, { notificationId, now });
    // No row: no dispatch was counted pending (nothing to count down); the page still marks the notification sending.
    if (!pending && targeted.size > 0) await markSendingStatement(trx, { notificationId, now });
    allFinished = !pending || Number(pending.dispatches_pending) === 0;
  } else if (targeted.size > 0) {
    await markSendingStatement(trx, { notificationId, now });
  }
  for (const platform of [...targeted.keys()].sort()) {
    await bumpPlatformStats(trx, notificationId, platform, { targeted: targeted.get(platform)! });
  }
  return allFinished;
}

const markSendingStatement = preparedQuery((db, param, _values: { notificationId: string; now: number }) =>
  db
    .updateTable('notifications')
    .set({ status: SENDING_ONCE_DISPATCHED, updated_at: param('now') })
    .where('id', '=', param<string>('notificationId')),
);

const finishDispatchStatement = preparedQuery((db, param, _values: { notificationId: string; now: number }) =>
  db
    .updateTable('notifications')
    .set((eb) => ({
      status: SENDING_ONCE_DISPATCHED,
      dispatches_pending: eb('dispatches_pending', '-', 1),
      updated_at: param('now'),
    }))
    .where('id', '=', param<string>('notificationId'))
    .where('dispatches_pending', '>', 0)
    .returning('dispatches_pending'),
);

/**
 * Sets targeted_count to the sum of what the dispatches targeted. Subscribers counted at acceptance that the dispatch
 * no longer found active (they unsubscribed or were removed in between) are counted as skipped, so recipients =
 * delivered + failed + skipped + pending holds; one that came back in between (registered again) is counted in.
 * One UPDATE, the sum read by it (UPDATE … FROM, on both dialects): the right-hand sides read the row as it was. Run
 * after the caller's transaction has locked the notification row, so its snapshot sees every dispatch's committed
 * counts (PostgreSQL takes a statement's snapshot when it starts).
 */
export async function fixTargetedCount(trx: Kysely<Database>, notificationId: string, now: number): Promise<number> {
  const [row] = await fixTargetedCountStatement(trx, { notificationId, now });
  // No row: the notification was deleted meanwhile (its account erased); nothing is left to count.
  return Number(row?.targeted_count ?? 0);
}

const fixTargetedCountStatement = preparedQuery((db, param, _values: { notificationId: string; now: number }) =>
  db
    .updateTable('notifications')
    .from(
      db
        .selectFrom('notification_platform_stats')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('targeted'), sql<number>`0`).as('targeted'))
        .where('notification_id', '=', param<string>('notificationId'))
        .as('dispatched'),
    )
    .set((eb) => ({
      targeted_count: eb.ref('dispatched.targeted'),
      skipped_count: sql<number>`skipped_count + CASE WHEN recipient_count > dispatched.targeted THEN recipient_count - dispatched.targeted ELSE 0 END`,
      recipient_count: sql<number>`CASE WHEN recipient_count < dispatched.targeted THEN dispatched.targeted ELSE recipient_count END`,
      updated_at: param('now'),
    }))
    .where('notifications.id', '=', param<string>('notificationId'))
    .returning('notifications.targeted_count'),
);

export interface FailedDelivery {
  subscriberId: string;
  platform: Platform;
  reason: string;
}

export interface SkippedDelivery {
  subscriberId: string;
  platform: Platform;
  reason: SkipReason;
}

/**
 * Adds a send batch's settled outcomes to the counters and records each failure and each listed skip (once per
 * subscriber; domain/skip-reasons.ts). A skip counts as skipped, not failed: a push not sent on purpose.
 * Lock order: the notification row first, then its platform stats — the same order as the dispatch's page
 * transaction — so concurrent batches and the dispatch never deadlock on PostgreSQL.
 */
export async function recordBatchOutcomes(
  trx: Kysely<Database>,
  input: {
    notificationId: string;
    delivered: Map<Platform, number>;
    failures: FailedDelivery[];
    skips?: SkippedDelivery[];
    /** Change in the recipients waiting for their quiet hours to end (held_count): + held now, − released. */
    heldChange?: number;
    now: number;
  },
): Promise<void> {
  const failedByPlatform = new Map<Platform, number>();
  for (const failure of input.failures)
    failedByPlatform.set(failure.platform, (failedByPlatform.get(failure.platform) ?? 0) + 1);
  const delivered = [...input.delivered.values()].reduce((sum, count) => sum + count, 0);
  const failed = input.failures.length;
  const skips = input.skips ?? [];
  const held = input.heldChange ?? 0;
  if (delivered + failed + skips.length === 0 && held === 0) return;
  await countOutcomesStatement(trx, {
    notificationId: input.notificationId,
    delivered,
    failed,
    skipped: skips.length,
    held,
    now: input.now,
  });
  const platforms = [...new Set<Platform>([...input.delivered.keys(), ...failedByPlatform.keys()])].sort();
  for (const platform of platforms) {
    await bumpPlatformStats(trx, input.notificationId, platform, {
      delivered: input.delivered.get(platform) ?? 0,
      failed: failedByPlatform.get(platform) ?? 0,
    });
  }
  const rows = [
    ...input.failures.map((failure) => ({ ...failure, outcome: 'failed' as const })),
    ...skips.filter((skip) => isListedSkip(skip.reason)).map((skip) => ({ ...skip, outcome: 'skipped' as const })),
  ];
  // Chunks keep each INSERT under SQLite's 32,766 bound parameters (6 per row).
  for (let start = 0; start < rows.length; start += 1000) {
    await trx
      .insertInto('delivery_failures')
      .values(
        rows.slice(start, start + 1000).map((row) => ({
          notification_id: input.notificationId,
          subscriber_id: row.subscriberId,
          platform: row.platform,
          reason: row.reason,
          outcome: row.outcome,
          created_at: input.now,
        })),
      )
      .onConflict((conflict) => conflict.columns(['notification_id', 'subscriber_id']).doNothing())
      .execute();
  }
}

const countOutcomesStatement = preparedQuery(
  (
    db,
    param,
    _values: { notificationId: string; delivered: number; failed: number; skipped: number; held: number; now: number },
  ) =>
    db
      .updateTable('notifications')
      .set((eb) => ({
        delivered_count: eb('delivered_count', '+', param<number>('delivered')),
        failed_count: eb('failed_count', '+', param<number>('failed')),
        skipped_count: eb('skipped_count', '+', param<number>('skipped')),
        held_count: eb('held_count', '+', param<number>('held')),
        updated_at: param('now'),
      }))
      .where('id', '=', param<string>('notificationId')),
);

/**
 * The single transition out of `sending`: once the dispatch is done and every recipient is delivered, failed or
 * skipped. A conditional UPDATE, so of several batches finishing together exactly one sees it happen (and reports it).
 * `sent` when anything was delivered or nothing failed; `failed` when every push that went out failed, with the
 * reason most of them failed with as the notification's `failure_reason` (unless one was set already, e.g. `expired`).
 */
export async function finishIfComplete(
  trx: Kysely<Database>,
  notificationId: string,
  now: number,
): Promise<NotificationRow | undefined> {
  const [finished] = await finishIfCompleteStatement(trx, { notificationId, now });
  return finished as NotificationRow | undefined;
}

const finishIfCompleteStatement = preparedQuery((db, param, _values: { notificationId: string; now: number }) =>
  db
    .updateTable('notifications')
    .set((eb) => {
      const allFailed = eb.and([eb('delivered_count', '=', 0), eb('failed_count', '>', 0)]);
      const commonestReason = eb
        .selectFrom('delivery_failures')
        .select('delivery_failures.reason')
        .whereRef('delivery_failures.notification_id', '=', 'notifications.id')
        .where('delivery_failures.outcome', '=', 'failed')
        .groupBy('delivery_failures.reason')
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('delivery_failures.reason')
        .limit(1);
      return {
        status: eb
          .case()
          .when(allFailed)
          .then(sql<'failed'>`'failed'`)
          .else(sql<'sent'>`'sent'`)
          .end(),
        failure_reason: eb
          .case()
          .when(allFailed)
          .then(eb.fn.coalesce('failure_reason', commonestReason))
          .else(eb.ref('failure_reason'))
          .end(),
        updated_at: param('now'),
      };
    })
    .where('id', '=', param<string>('notificationId'))
    .where('status', '=', 'sending')
    .where('targeted_count', 'is not', null)
    .where((eb) =>
      eb(
        eb(eb('delivered_count', '+', eb.ref('failed_count')), '+', eb.ref('skipped_count')),
        '>=',
        eb.ref('recipient_count'),
      ),
    )
    .returningAll(),
);

export interface PlatformStats {
  platform: Platform;
  targeted: number;
  delivered: number;
  failed: number;
}

export async function platformStats(db: Kysely<Database>, notificationId: string): Promise<PlatformStats[]> {
  return platformStatsQuery(db, { notificationId });
}

const platformStatsQuery = preparedQuery((db, param, _values: { notificationId: string }) =>
  db
    .selectFrom('notification_platform_stats')
    .select(['platform', 'targeted', 'delivered', 'failed'])
    .where('notification_id', '=', param<string>('notificationId'))
    .orderBy('platform'),
);

export async function listDeliveryFailures(
  db: Kysely<Database>,
  input: { notificationId: string; after: string | null; limit: number },
): Promise<
  Array<{
    subscriber_id: string;
    platform: Platform;
    reason: string;
    outcome: 'failed' | 'skipped';
    created_at: number;
  }>
> {
  let query = db
    .selectFrom('delivery_failures')
    .select(['subscriber_id', 'platform', 'reason', 'outcome', 'created_at'])
    .where('notification_id', '=', input.notificationId);
  if (input.after) query = query.where('subscriber_id', '>', input.after);
  return query.orderBy('subscriber_id').limit(input.limit).execute();
}
