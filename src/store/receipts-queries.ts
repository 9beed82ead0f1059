import type { Kysely } from 'kysely';
import type { Platform } from '../domain/device-token.ts';
import { firstIdAt } from '../domain/ids.ts';
import type { ReceiptEvent } from '../domain/receipt.ts';
import { recordEvents } from './events-queries.ts';
import type { Database } from './schema.ts';

/** One report from a device, its receipt already opened (domain/receipt.ts openReceipt). */
export interface ReceiptReport {
  notificationId: string;
  subscriberId: string;
  event: ReceiptEvent;
  /** `action` only: the id of the action tapped. */
  actionId: string | null;
}

/**
 * What became of a report: `counted`; `duplicate` (that subscriber already reported that event for that notification);
 * `ignored` (the account has receipts off: nothing is stored); `expired` (the notification is older than the receipts'
 * retention, whose reports are deleted, so it could no longer be told from a repeat); `unknown` (no such notification, or no such subscriber of its
 * channel: erased with its user, or never one).
 */
export type ReceiptResult = 'counted' | 'duplicate' | 'ignored' | 'expired' | 'unknown';

/** The counter of notification_platform_stats each event adds to. */
const counterOf = {
  received: 'received',
  opened: 'opened',
  dismissed: 'dismissed',
  action: 'actions',
} as const satisfies Record<ReceiptEvent, string>;

/**
 * Records reports in the caller's transaction: each counts once per (notification, subscriber, event), whatever the
 * number of times it arrives, and adds one to its platform's counter of the notification; an open, a dismissal or an
 * action also counts as received when that was not reported (an app without a Notification Service Extension never
 * reports `received`, yet the person saw the push). `notification.opened` and `notification.action` events are
 * recorded with them, for webhooks. Results in the order of `reports`.
 */
export async function recordReceipts(
  trx: Kysely<Database>,
  reports: readonly ReceiptReport[],
  now: number,
  retentionMs: number,
): Promise<ReceiptResult[]> {
  const pairs = await findReceiptPairs(trx, reports);
  const kept = keptSince(now, retentionMs);
  const results: ReceiptResult[] = [];
  const rows: ReceiptReport[] = [];
  for (const report of reports) {
    const pair = pairs.get(pairKey(report));
    if (!pair) results.push('unknown');
    else if (!pair.receiptsEnabled) results.push('ignored');
    else if (report.notificationId < kept) results.push('expired');
    else {
      results.push('counted');
      rows.push(report);
      if (report.event !== 'received') rows.push({ ...report, event: 'received', actionId: null });
    }
  }
  if (rows.length === 0) return results;

  const inserted = await trx
    .insertInto('receipts')
    .values(
      uniqueBy(rows, keyOf).map((report) => ({
        notification_id: report.notificationId,
        subscriber_id: report.subscriberId,
        event: report.event,
        action_id: report.actionId,
        created_at: now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['notification_id', 'subscriber_id', 'event']).doNothing())
    .returning(['notification_id', 'subscriber_id', 'event', 'action_id'])
    .execute()
    .then((rows) =>
      rows.map((row) => ({
        notificationId: row.notification_id,
        subscriberId: row.subscriber_id,
        event: row.event,
        actionId: row.action_id,
      })),
    );
  const counted = new Set(inserted.map(keyOf));
  // A report that inserted nothing was there already; the same report twice in one request counts once too.
  const seen = new Set<string>();
  for (const [position, report] of reports.entries()) {
    if (results[position] !== 'counted') continue;
    const key = keyOf(report);
    if (!counted.has(key) || seen.has(key)) results[position] = 'duplicate';
    seen.add(key);
  }

  const bumps = new Map<string, { notificationId: string; platform: Platform; counts: Record<string, number> }>();
  for (const row of inserted) {
    const pair = pairs.get(pairKey(row))!;
    const key = `${row.notificationId} ${pair.platform}`;
    const bump = bumps.get(key) ?? { notificationId: row.notificationId, platform: pair.platform, counts: {} };
    const counter = counterOf[row.event];
    bump.counts[counter] = (bump.counts[counter] ?? 0) + 1;
    bumps.set(key, bump);
  }
  for (const { notificationId, platform, counts } of bumps.values()) {
    await trx
      .updateTable('notification_platform_stats')
      .set((eb) =>
        Object.fromEntries(
          Object.entries(counts).map(([counter, count]) => [
            counter,
            eb(counter as (typeof counterOf)[ReceiptEvent], '+', count),
          ]),
        ),
      )
      .where('notification_id', '=', notificationId)
      .where('platform', '=', platform)
      .execute();
  }

  const events = inserted
    .filter((row) => row.event === 'opened' || row.event === 'action')
    .map((row) => {
      const pair = pairs.get(pairKey(row))!;
      return {
        accountId: pair.accountId,
        type: row.event === 'opened' ? ('notification.opened' as const) : ('notification.action' as const),
        data: {
          notificationId: row.notificationId,
          channelCode: pair.channelCode,
          subscriberId: row.subscriberId,
          externalId: pair.externalId,
          platform: pair.platform,
          ...(row.event === 'action' ? { actionId: row.actionId } : {}),
        },
        now,
      };
    });
  await recordEvents(trx, events);
  return results;
}

/** Notifications made before this id are past the receipts' retention (ids sort by creation time, domain/ids.ts). */
function keptSince(now: number, retentionMs: number): string {
  return firstIdAt('notification', now - retentionMs);
}

/** How many notifications' receipts one DELETE removes: short statements, so SQLite's single writer is not held long. */
const PRUNE_BATCH_NOTIFICATIONS = 100;

/**
 * Deletes the receipts of notifications older than the retention (CLARION_RECEIPT_RETENTION), a batch of
 * notifications per statement, until none is left; their counts stay. Returns how many rows went.
 */
export async function pruneReceipts(db: Kysely<Database>, now: number, retentionMs: number): Promise<number> {
  const kept = keptSince(now, retentionMs);
  let deleted = 0;
  for (;;) {
    const result = await db
      .deleteFrom('receipts')
      .where('notification_id', 'in', (eb) =>
        eb
          .selectFrom('receipts')
          .select('notification_id')
          .distinct()
          .where('notification_id', '<', kept)
          .limit(PRUNE_BATCH_NOTIFICATIONS),
      )
      .executeTakeFirst();
    const rows = Number(result.numDeletedRows);
    if (rows === 0) return deleted;
    deleted += rows;
  }
}

interface ReceiptPair {
  accountId: string;
  channelCode: string;
  receiptsEnabled: boolean;
  platform: Platform;
  externalId: string | null;
}

/**
 * The (notification, subscriber) pairs the reports name that exist together: the subscriber of the notification's own
 * channel, so a genuine receipt of one account can never count for another's notification.
 */
async function findReceiptPairs(
  db: Kysely<Database>,
  reports: readonly ReceiptReport[],
): Promise<Map<string, ReceiptPair>> {
  const notificationIds = [...new Set(reports.map((report) => report.notificationId))];
  const subscriberIds = [...new Set(reports.map((report) => report.subscriberId))];
  const rows = await db
    .selectFrom('notifications')
    .innerJoin('accounts', 'accounts.id', 'notifications.account_id')
    .innerJoin('subscribers', (join) =>
      join
        .onRef('subscribers.channel_id', '=', 'notifications.channel_id')
        .onRef('subscribers.account_id', '=', 'notifications.account_id'),
    )
    .select([
      'notifications.id as notification_id',
      'notifications.account_id',
      'notifications.channel_code',
      'accounts.receipts_enabled',
      'subscribers.id as subscriber_id',
      'subscribers.platform',
      'subscribers.external_id',
    ])
    .where('notifications.id', 'in', notificationIds)
    .where('subscribers.id', 'in', subscriberIds)
    .execute();
  return new Map(
    rows.map((row) => [
      `${row.notification_id} ${row.subscriber_id}`,
      {
        accountId: row.account_id,
        channelCode: row.channel_code,
        receiptsEnabled: Number(row.receipts_enabled) === 1,
        platform: row.platform,
        externalId: row.external_id,
      },
    ]),
  );
}

function pairKey(report: Pick<ReceiptReport, 'notificationId' | 'subscriberId'>): string {
  return `${report.notificationId} ${report.subscriberId}`;
}

function keyOf(report: ReceiptReport): string {
  return `${pairKey(report)} ${report.event}`;
}

/** The first of each key: one INSERT row per (notification, subscriber, event). */
function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A notification's counters on one platform: its deliveries and what its receipts reported. */
export interface PlatformCounts {
  platform: Platform;
  delivered: number;
  failed: number;
  received: number;
  opened: number;
  dismissed: number;
  actions: number;
}

/** The per-platform counters of each notification named, for its view (one query for a page of the list). */
export async function platformCountsOf(
  db: Kysely<Database>,
  notificationIds: readonly string[],
): Promise<Map<string, PlatformCounts[]>> {
  const byNotification = new Map<string, PlatformCounts[]>();
  if (notificationIds.length === 0) return byNotification;
  const rows = await db
    .selectFrom('notification_platform_stats')
    .select(['notification_id', 'platform', 'delivered', 'failed', 'received', 'opened', 'dismissed', 'actions'])
    .where('notification_id', 'in', notificationIds)
    .orderBy('platform')
    .execute();
  for (const { notification_id: id, ...counts } of rows) {
    const list = byNotification.get(id) ?? [];
    list.push({
      platform: counts.platform,
      delivered: Number(counts.delivered),
      failed: Number(counts.failed),
      received: Number(counts.received),
      opened: Number(counts.opened),
      dismissed: Number(counts.dismissed),
      actions: Number(counts.actions),
    });
    byNotification.set(id, list);
  }
  return byNotification;
}
