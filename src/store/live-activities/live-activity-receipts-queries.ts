import type { Kysely } from 'kysely';
import { firstIdAt } from '../../domain/ids.ts';
import type { ReceiptEvent } from '../../domain/receipt.ts';
import { judgeReports, markDuplicates, type ReceiptResult } from '../receipts-queries.ts';
import type { Database } from '../schema.ts';

/** One report of a Live Activity's receipt (domain/receipt.ts mintLiveActivityReceipt), the receipt already opened. */
export interface LiveActivityReceiptReport {
  liveActivityId: string;
  subscriberId: string;
  event: ReceiptEvent;
  actionId: string | null;
}

/** The counter of live_activities each event adds to. */
const counterOf = {
  received: 'received_count',
  opened: 'opened_count',
  dismissed: 'dismissed_count',
  action: 'actions_count',
} as const satisfies Record<ReceiptEvent, string>;

/**
 * Records Live Activity reports in the caller's transaction, by the rules of a notification's
 * (receipts-queries.ts judgeReports, markDuplicates): each counts once per (activity, subscriber, event) and adds one
 * to the activity's counter; an open, a dismissal or an action also counts as received. Only a subscriber of the activity's own channel and
 * account can report; `expired` past the receipts' retention, `ignored` when the account has receipts off. They are
 * counted, not reported as webhook events. Results in the order of `reports`. Pruned with the notifications' receipts
 * (receipts-queries.ts pruneReceipts).
 */
export async function recordLiveActivityReceipts(
  trx: Kysely<Database>,
  reports: readonly LiveActivityReceiptReport[],
  now: number,
  retentionMs: number,
): Promise<ReceiptResult[]> {
  const pairs = await findPairs(trx, reports);
  const kept = keptSince(now, retentionMs);
  const { results, rows } = judgeReports(
    reports,
    (report) => {
      const receiptsEnabled = pairs.get(pairKey(report));
      if (receiptsEnabled === undefined) return 'unknown';
      if (!receiptsEnabled) return 'ignored';
      return report.liveActivityId < kept ? 'expired' : 'counted';
    },
    keyOf,
  );
  if (rows.length === 0) return results;

  const inserted = await trx
    .insertInto('live_activity_receipts')
    .values(
      rows.map((row) => ({
        live_activity_id: row.liveActivityId,
        subscriber_id: row.subscriberId,
        event: row.event,
        action_id: row.actionId,
        created_at: now,
      })),
    )
    .onConflict((conflict) => conflict.columns(['live_activity_id', 'subscriber_id', 'event']).doNothing())
    .returning(['live_activity_id', 'subscriber_id', 'event'])
    .execute();
  const counted = new Set(
    inserted.map((row) => keyOf({ liveActivityId: row.live_activity_id, subscriberId: row.subscriber_id, ...row })),
  );
  markDuplicates(reports, results, counted, keyOf);

  const bumps = new Map<string, Partial<Record<(typeof counterOf)[ReceiptEvent], number>>>();
  for (const row of inserted) {
    const counts = bumps.get(row.live_activity_id) ?? {};
    const counter = counterOf[row.event];
    counts[counter] = (counts[counter] ?? 0) + 1;
    bumps.set(row.live_activity_id, counts);
  }
  for (const [liveActivityId, counts] of bumps) {
    await trx
      .updateTable('live_activities')
      .set((eb) =>
        Object.fromEntries(
          Object.entries(counts).map(([counter, count]) => [counter, eb(counter as keyof typeof counts, '+', count)]),
        ),
      )
      .where('id', '=', liveActivityId)
      .execute();
  }
  return results;
}

/** Activities made before this id are past the receipts' retention (ids sort by creation time, domain/ids.ts). */
function keptSince(now: number, retentionMs: number): string {
  return firstIdAt('liveActivity', now - retentionMs);
}

/**
 * For each (activity, subscriber) pair the reports name that exists together — the subscriber of the activity's own
 * channel and account — whether the account has receipts on.
 */
async function findPairs(
  db: Kysely<Database>,
  reports: readonly LiveActivityReceiptReport[],
): Promise<Map<string, boolean>> {
  const rows = await db
    .selectFrom('live_activities')
    .innerJoin('accounts', 'accounts.id', 'live_activities.account_id')
    .innerJoin('subscribers', (join) =>
      join
        .onRef('subscribers.channel_id', '=', 'live_activities.channel_id')
        .onRef('subscribers.account_id', '=', 'live_activities.account_id'),
    )
    .select(['live_activities.id as live_activity_id', 'subscribers.id as subscriber_id', 'accounts.receipts_enabled'])
    .where('live_activities.id', 'in', [...new Set(reports.map((report) => report.liveActivityId))])
    .where('subscribers.id', 'in', [...new Set(reports.map((report) => report.subscriberId))])
    .execute();
  return new Map(
    rows.map((row) => [
      pairKey({ liveActivityId: row.live_activity_id, subscriberId: row.subscriber_id }),
      Number(row.receipts_enabled) === 1,
    ]),
  );
}

function pairKey(report: Pick<LiveActivityReceiptReport, 'liveActivityId' | 'subscriberId'>): string {
  return `${report.liveActivityId} ${report.subscriberId}`;
}

function keyOf(report: Pick<LiveActivityReceiptReport, 'liveActivityId' | 'subscriberId' | 'event'>): string {
  return `${pairKey(report)} ${report.event}`;
}
