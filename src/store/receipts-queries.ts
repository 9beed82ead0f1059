import type { Insertable, Kysely } from 'kysely';
import type { Platform } from '../domain/device-token.ts';
import { firstIdAt, newId } from '../domain/ids.ts';
import type { ReceiptEvent } from '../domain/receipt.ts';
import type { Store } from './database.ts';
import { recordEvents } from './events-queries.ts';
import { idListValues, inIdList } from './id-list.ts';
import { preparedQuery, type Param } from './prepared-query.ts';
import type { RecordReceiptInOneStatement } from './postgres/record-receipt-in-one-statement.ts';
import { preparedRowsQuery } from './prepared-rows-query.ts';
import type { Database, ReceiptsTable } from './schema.ts';

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
export const counterOf = {
  received: 'received',
  opened: 'opened',
  dismissed: 'dismissed',
  action: 'actions',
} as const satisfies Record<ReceiptEvent, string>;

/**
 * Records reports: each counts once per (notification, subscriber, event), whatever the number of times it arrives,
 * and adds one to its platform's counter of the notification; an open, a dismissal or an action also counts as
 * received when that was not reported (an app without a Notification Service Extension never reports `received`, yet
 * the person saw the push). `notification.opened` and `notification.action` events are recorded with them, for
 * webhooks. Results in the order of `reports`.
 *
 * In a short transaction (`Store.runShortTransaction`: on SQLite shared with the other requests of the same moment,
 * one COMMIT for all of them) with statements compiled once (src/store/prepared-query.ts); or, for one report within
 * the retention where the store has it (PostgreSQL, where each statement is a round trip), as ONE statement that is
 * its own transaction (src/store/postgres/record-receipt-in-one-statement.ts). Measured: docs/performance.md,
 * "Receipts".
 */
export async function recordReceipts(
  store: Store,
  reports: readonly ReceiptReport[],
  now: number,
  retentionMs: number,
): Promise<ReceiptResult[]> {
  const [only] = reports;
  const { recordReceiptInOneStatement } = store;
  if (recordReceiptInOneStatement && only && reports.length === 1 && only.notificationId >= keptSince(now, retentionMs))
    return [await recordOneReceipt(store.db, recordReceiptInOneStatement, only, now)];
  return store.runShortTransaction((trx) => recordInTransaction(trx, reports, now, retentionMs));
}

/** One report as one statement; what it does is recordInTransaction's for a single report, event data included. */
async function recordOneReceipt(
  db: Kysely<Database>,
  statement: RecordReceiptInOneStatement,
  report: ReceiptReport,
  now: number,
): Promise<ReceiptResult> {
  const [row] = await statement(db, {
    event: report.event,
    notificationId: report.notificationId,
    subscriberId: report.subscriberId,
    actionId: report.actionId,
    now,
    eventId: newId('event', now),
    // The event's data as recordInTransaction writes it (JSON.stringify of its object, in its order), the database
    // filling in the channel's code, the external id and the platform.
    dataHead: `{"notificationId":${JSON.stringify(report.notificationId)},"channelCode":`,
    dataMiddle: `,"subscriberId":${JSON.stringify(report.subscriberId)},"externalId":`,
    dataTail: report.event === 'action' ? `,"actionId":${JSON.stringify(report.actionId)}}` : '}',
  });
  if (!row) return 'unknown';
  if (Number(row.receipts_enabled) !== 1) return 'ignored';
  return row.counted ? 'counted' : 'duplicate';
}

/** Records reports in the caller's transaction (recordReceipts). */
async function recordInTransaction(
  trx: Kysely<Database>,
  reports: readonly ReceiptReport[],
  now: number,
  retentionMs: number,
): Promise<ReceiptResult[]> {
  const pairs = await findReceiptPairs(trx, reports);
  const kept = keptSince(now, retentionMs);
  const { results, rows } = judgeReports(
    reports,
    (report) => {
      const pair = pairs.get(pairKey(report));
      if (!pair) return 'unknown';
      if (!pair.receiptsEnabled) return 'ignored';
      return report.notificationId < kept ? 'expired' : 'counted';
    },
    keyOf,
  );
  if (rows.length === 0) return results;

  const inserted = (
    await insertReceipts(
      trx,
      rows.map((report) => ({
        notification_id: report.notificationId,
        subscriber_id: report.subscriberId,
        event: report.event,
        action_id: report.actionId,
        created_at: now,
      })),
    )
  ).map((row) => ({
    notificationId: row.notification_id,
    subscriberId: row.subscriber_id,
    event: row.event,
    actionId: row.action_id,
  }));
  markDuplicates(reports, results, new Set(inserted.map(keyOf)), keyOf);

  const bumps = new Map<string, CounterBump>();
  for (const row of inserted) {
    const pair = pairs.get(pairKey(row))!;
    const key = `${row.notificationId} ${pair.platform}`;
    let bump = bumps.get(key);
    if (!bump) {
      bump = {
        notificationId: row.notificationId,
        platform: pair.platform,
        received: 0,
        opened: 0,
        dismissed: 0,
        actions: 0,
      };
      bumps.set(key, bump);
    }
    bump[counterOf[row.event]] += 1;
  }
  for (const bump of bumps.values()) await bumpCounters(trx, bump);

  const events = inserted
    .filter((row) => row.event === 'opened' || row.event === 'action')
    .map((row) => {
      const pair = pairs.get(pairKey(row))!;
      return {
        accountId: pair.accountId,
        type: row.event === 'opened' ? ('notification.opened' as const) : ('notification.action' as const),
        // recordOneReceipt writes the same text: keep the two in step.
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

/** How many notifications' (or activities') receipts one DELETE removes: short statements, not to hold SQLite's writer. */
const PRUNE_BATCH = 100;

/**
 * Deletes the receipts of notifications and Live Activities older than the retention (CLARION_RECEIPT_RETENTION), a
 * batch of notifications or activities per statement, until none is left; their counts stay. Returns how many rows
 * went.
 */
export async function pruneReceipts(db: Kysely<Database>, now: number, retentionMs: number): Promise<number> {
  const notificationsKept = keptSince(now, retentionMs);
  const activitiesKept = firstIdAt('liveActivity', now - retentionMs);
  const ofNotifications = await deleteInBatches(() =>
    db
      .deleteFrom('receipts')
      .where('notification_id', 'in', (eb) =>
        eb
          .selectFrom('receipts')
          .select('notification_id')
          .distinct()
          .where('notification_id', '<', notificationsKept)
          .limit(PRUNE_BATCH),
      )
      .executeTakeFirst(),
  );
  const ofActivities = await deleteInBatches(() =>
    db
      .deleteFrom('live_activity_receipts')
      .where('live_activity_id', 'in', (eb) =>
        eb
          .selectFrom('live_activity_receipts')
          .select('live_activity_id')
          .distinct()
          .where('live_activity_id', '<', activitiesKept)
          .limit(PRUNE_BATCH),
      )
      .executeTakeFirst(),
  );
  return ofNotifications + ofActivities;
}

/** Runs `deleteBatch` until it deletes nothing; how many rows went in all. */
async function deleteInBatches(deleteBatch: () => Promise<{ numDeletedRows: bigint }>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = Number((await deleteBatch()).numDeletedRows);
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
  const [first, ...more] = reports;
  let values: PairValues;
  if (first && more.length === 0) values = { notificationId: first.notificationId, subscriberId: first.subscriberId };
  else {
    const notifications = idListValues(db, [...new Set(reports.map((report) => report.notificationId))]);
    const subscribers = idListValues(db, [...new Set(reports.map((report) => report.subscriberId))]);
    values = {
      notificationIdArray: notifications.idArray,
      notificationIdJson: notifications.idJson,
      subscriberIdArray: subscribers.idArray,
      subscriberIdJson: subscribers.idJson,
    };
  }
  const rows = await receiptPairsQuery(db, values);
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

/** One report's pair by its two ids, or a batch's by its two id lists, each list one parameter (id-list.ts). */
type PairValues =
  | { notificationId: string; subscriberId: string }
  | {
      notificationIdArray?: readonly string[] | undefined;
      notificationIdJson?: string | undefined;
      subscriberIdArray?: readonly string[] | undefined;
      subscriberIdJson?: string | undefined;
    };

/** The pairs' SELECT, to be narrowed to the reports' ids; also the first part of recordReceiptInOneStatement. */
export function receiptPairsSelect(db: Kysely<Database>) {
  return db
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
    ]);
}

/** Two texts on each database, whatever the batch's size: one report's, and a batch's. */
const receiptPairsQuery = preparedQuery(
  (db, param, values: PairValues) => {
    const query = receiptPairsSelect(db);
    if ('notificationId' in values)
      return query
        .where('notifications.id', '=', param<string>('notificationId'))
        .where('subscribers.id', '=', param<string>('subscriberId'));
    return query
      .where(inIdList(db, 'notifications.id', prefixed(param, 'notification')))
      .where(inIdList(db, 'subscribers.id', prefixed(param, 'subscriber')));
  },
  (values) => ('notificationId' in values ? 'one' : 'list'),
);

/** inIdList's parameters (`idArray`, `idJson`) under a prefix, for a statement with two lists. */
function prefixed(param: Param, prefix: string): Param {
  return (name) => param(`${prefix}${name[0]!.toUpperCase()}${name.slice(1)}`);
}

/** The INSERT of the reports' rows, compiled once per number of rows (preparedRowsQuery): 1 or 2 for one report. */
const insertReceipts = preparedRowsQuery((db, rows: ReadonlyArray<Insertable<ReceiptsTable>>) =>
  db
    .insertInto('receipts')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['notification_id', 'subscriber_id', 'event']).doNothing())
    .returning(['notification_id', 'subscriber_id', 'event', 'action_id']),
);

type CounterBump = { notificationId: string; platform: Platform } & Record<(typeof counterOf)[ReceiptEvent], number>;

/** What a notification's platform gained from the reports: every counter in one text, the unchanged ones adding 0. */
const bumpCounters = preparedQuery((db, param, _values: CounterBump) =>
  db
    .updateTable('notification_platform_stats')
    .set((eb) => ({
      received: eb('received', '+', param<number>('received')),
      opened: eb('opened', '+', param<number>('opened')),
      dismissed: eb('dismissed', '+', param<number>('dismissed')),
      actions: eb('actions', '+', param<number>('actions')),
    }))
    .where('notification_id', '=', param<string>('notificationId'))
    .where('platform', '=', param<Platform>('platform')),
);

function pairKey(report: Pick<ReceiptReport, 'notificationId' | 'subscriberId'>): string {
  return `${report.notificationId} ${report.subscriberId}`;
}

function keyOf(report: ReceiptReport): string {
  return `${pairKey(report)} ${report.event}`;
}

/** What a report's receipt names and how it stands, before its rows are written: counted unless one of the others. */
export type ReportStanding = Exclude<ReceiptResult, 'duplicate'>;

/**
 * The rules every kind of receipt shares (a notification's here, a Live Activity's in
 * live-activities/live-activity-receipts-queries.ts): each report's result by its `standing`, and the rows a counted
 * one writes — itself and the `received` an open, a dismissal or an action implies (an app without a Notification
 * Service Extension never reports `received`, yet the person saw the push) — once per key.
 */
export function judgeReports<R extends { event: ReceiptEvent; actionId: string | null }>(
  reports: readonly R[],
  standing: (report: R) => ReportStanding,
  keyOf: (report: R) => string,
): { results: ReceiptResult[]; rows: R[] } {
  const results: ReceiptResult[] = [];
  const rows = new Map<string, R>();
  for (const report of reports) {
    const result = standing(report);
    results.push(result);
    if (result !== 'counted') continue;
    for (const row of report.event === 'received'
      ? [report]
      : [report, { ...report, event: 'received', actionId: null }])
      if (!rows.has(keyOf(row))) rows.set(keyOf(row), row);
  }
  return { results, rows: [...rows.values()] };
}

/**
 * Turns `counted` into `duplicate` for a report whose row was there already (`inserted` lacks its key), and for the
 * same report a second time in one request: each (receipt, event) counts once.
 */
export function markDuplicates<R>(
  reports: readonly R[],
  results: ReceiptResult[],
  inserted: ReadonlySet<string>,
  keyOf: (report: R) => string,
): void {
  const seen = new Set<string>();
  for (const [position, report] of reports.entries()) {
    if (results[position] !== 'counted') continue;
    const key = keyOf(report);
    if (!inserted.has(key) || seen.has(key)) results[position] = 'duplicate';
    seen.add(key);
  }
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
