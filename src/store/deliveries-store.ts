import { sql, type Kysely } from 'kysely';
import type { Audience } from '../domain/audience.ts';
import type { Platform } from '../domain/device-token.ts';
import { withAudience } from './audience-filter.ts';
import type { NotificationRow } from './notifications-store.ts';
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
  input: { channelId: string; createdAtOrBefore: number; timezone?: string | null | undefined; audience?: Audience | null; after: string | null; limit: number },
): Promise<DispatchTarget[]> {
  let query = db
    .selectFrom('subscribers')
    .select(['id', 'platform'])
    .where('channel_id', '=', input.channelId)
    .where('status', '=', 'active')
    .where('created_at', '<=', input.createdAtOrBefore);
  if (input.timezone === null) query = query.where('timezone', 'is', null);
  else if (input.timezone !== undefined) query = query.where('timezone', '=', input.timezone);
  if (input.after) query = query.where('id', '>', input.after);
  return withAudience(query, input.audience ?? null).orderBy('id').limit(input.limit).execute();
}

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
  await trx
    .insertInto('notification_platform_stats')
    .values({ notification_id: notificationId, platform, targeted, delivered, failed })
    .onConflict((conflict) =>
      conflict.columns(['notification_id', 'platform']).doUpdateSet((eb) => ({
        targeted: eb('notification_platform_stats.targeted', '+', targeted),
        delivered: eb('notification_platform_stats.delivered', '+', delivered),
        failed: eb('notification_platform_stats.failed', '+', failed),
      })),
    )
    .execute();
}

/** Records one dispatched page's per-platform targeted counts (the notification row first: lock order as below). */
export async function recordDispatchedPage(
  trx: Kysely<Database>,
  input: { notificationId: string; targeted: Map<Platform, number>; now: number },
): Promise<void> {
  await trx.updateTable('notifications').set({ updated_at: input.now }).where('id', '=', input.notificationId).execute();
  for (const platform of [...input.targeted.keys()].sort()) {
    await bumpPlatformStats(trx, input.notificationId, platform, { targeted: input.targeted.get(platform)! });
  }
}

/**
 * One dispatch has paged its subscribers. When it was the last one pending (local-time delivery has one per time
 * zone), the number of targeted subscribers is fixed and returned; otherwise null.
 */
export async function finishDispatch(trx: Kysely<Database>, notificationId: string, now: number): Promise<number | null> {
  const pending = await trx
    .updateTable('notifications')
    .set((eb) => ({ dispatches_pending: eb('dispatches_pending', '-', 1), updated_at: now }))
    .where('id', '=', notificationId)
    .where('dispatches_pending', '>', 0)
    .returning('dispatches_pending')
    .executeTakeFirst();
  if (pending && Number(pending.dispatches_pending) > 0) return null;
  return fixTargetedCount(trx, notificationId, now);
}

/**
 * Sets targeted_count to the sum of what the dispatches targeted. Subscribers counted at acceptance that the dispatch
 * no longer found active (they unsubscribed or were removed in between) are counted as skipped, so recipients =
 * delivered + failed + skipped + pending holds; one that came back in between (registered again) is counted in.
 * One UPDATE: the right-hand sides read the row as it was, on both dialects.
 */
export async function fixTargetedCount(trx: Kysely<Database>, notificationId: string, now: number): Promise<number> {
  const row = await trx
    .selectFrom('notification_platform_stats')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('targeted'), sql<number>`0`).as('targeted'))
    .where('notification_id', '=', notificationId)
    .executeTakeFirstOrThrow();
  const targeted = Number(row.targeted);
  await trx
    .updateTable('notifications')
    .set({
      targeted_count: targeted,
      skipped_count: sql<number>`skipped_count + CASE WHEN recipient_count > ${targeted} THEN recipient_count - ${targeted} ELSE 0 END`,
      recipient_count: sql<number>`CASE WHEN recipient_count < ${targeted} THEN ${targeted} ELSE recipient_count END`,
      updated_at: now,
    })
    .where('id', '=', notificationId)
    .execute();
  return targeted;
}

export interface FailedDelivery {
  subscriberId: string;
  platform: Platform;
  reason: string;
}

/**
 * Adds a send batch's settled outcomes to the counters and records each failure (once per subscriber). `skipped`
 * counts pushes not sent because the subscriber had left since the dispatch (no failure row: nothing failed).
 * Lock order: the notification row first, then its platform stats — the same order as the dispatch's page
 * transaction — so concurrent batches and the dispatch never deadlock on PostgreSQL.
 */
export async function recordBatchOutcomes(
  trx: Kysely<Database>,
  input: { notificationId: string; delivered: Map<Platform, number>; failures: FailedDelivery[]; skipped?: number; now: number },
): Promise<void> {
  const failedByPlatform = new Map<Platform, number>();
  for (const failure of input.failures) failedByPlatform.set(failure.platform, (failedByPlatform.get(failure.platform) ?? 0) + 1);
  const delivered = [...input.delivered.values()].reduce((sum, count) => sum + count, 0);
  const failed = input.failures.length;
  const skipped = input.skipped ?? 0;
  if (delivered + failed + skipped === 0) return;
  await trx
    .updateTable('notifications')
    .set((eb) => ({
      delivered_count: eb('delivered_count', '+', delivered),
      failed_count: eb('failed_count', '+', failed),
      ...(skipped > 0 ? { skipped_count: eb('skipped_count', '+', skipped) } : {}),
      updated_at: input.now,
    }))
    .where('id', '=', input.notificationId)
    .execute();
  const platforms = [...new Set<Platform>([...input.delivered.keys(), ...failedByPlatform.keys()])].sort();
  for (const platform of platforms) {
    await bumpPlatformStats(trx, input.notificationId, platform, { delivered: input.delivered.get(platform) ?? 0, failed: failedByPlatform.get(platform) ?? 0 });
  }
  // Chunks keep each INSERT under SQLite's 32,766 bound parameters (5 per row).
  for (let start = 0; start < input.failures.length; start += 1000) {
    await trx
      .insertInto('delivery_failures')
      .values(
        input.failures.slice(start, start + 1000).map((failure) => ({
          notification_id: input.notificationId,
          subscriber_id: failure.subscriberId,
          platform: failure.platform,
          reason: failure.reason,
          created_at: input.now,
        })),
      )
      .onConflict((conflict) => conflict.columns(['notification_id', 'subscriber_id']).doNothing())
      .execute();
  }
}

/**
 * The single transition out of `sending`: once the dispatch is done and every recipient is delivered, failed or
 * skipped. A conditional UPDATE, so of several batches finishing together exactly one sees it happen (and reports it).
 * `sent` when anything was delivered or nothing failed; `failed` when every push that went out failed, with the
 * reason most of them failed with as the notification's `failure_reason` (unless one was set already, e.g. `expired`).
 */
export async function finishIfComplete(trx: Kysely<Database>, notificationId: string, now: number): Promise<NotificationRow | undefined> {
  return trx
    .updateTable('notifications')
    .set((eb) => {
      const allFailed = eb.and([eb('delivered_count', '=', 0), eb('failed_count', '>', 0)]);
      const commonestReason = eb
        .selectFrom('delivery_failures')
        .select('delivery_failures.reason')
        .whereRef('delivery_failures.notification_id', '=', 'notifications.id')
        .groupBy('delivery_failures.reason')
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('delivery_failures.reason')
        .limit(1);
      return {
        status: eb.case().when(allFailed).then(sql<'failed'>`'failed'`).else(sql<'sent'>`'sent'`).end(),
        failure_reason: eb.case().when(allFailed).then(eb.fn.coalesce('failure_reason', commonestReason)).else(eb.ref('failure_reason')).end(),
        updated_at: now,
      };
    })
    .where('id', '=', notificationId)
    .where('status', '=', 'sending')
    .where('targeted_count', 'is not', null)
    .where((eb) => eb(eb(eb('delivered_count', '+', eb.ref('failed_count')), '+', eb.ref('skipped_count')), '>=', eb.ref('recipient_count')))
    .returningAll()
    .executeTakeFirst() as Promise<NotificationRow | undefined>;
}

export interface PlatformStats {
  platform: Platform;
  targeted: number;
  delivered: number;
  failed: number;
}

export async function platformStats(db: Kysely<Database>, notificationId: string): Promise<PlatformStats[]> {
  return db
    .selectFrom('notification_platform_stats')
    .select(['platform', 'targeted', 'delivered', 'failed'])
    .where('notification_id', '=', notificationId)
    .orderBy('platform')
    .execute();
}

export async function listDeliveryFailures(
  db: Kysely<Database>,
  input: { notificationId: string; after: string | null; limit: number },
): Promise<Array<{ subscriber_id: string; platform: Platform; reason: string; created_at: number }>> {
  let query = db
    .selectFrom('delivery_failures')
    .select(['subscriber_id', 'platform', 'reason', 'created_at'])
    .where('notification_id', '=', input.notificationId);
  if (input.after) query = query.where('subscriber_id', '>', input.after);
  return query.orderBy('subscriber_id').limit(input.limit).execute();
}
