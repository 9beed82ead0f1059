import type { Kysely } from 'kysely';
import { finishIfComplete, platformStats } from '../store/deliveries-queries.ts';
import { recordEvent } from '../store/events-queries.ts';
import type { Database } from '../store/schema.ts';

/**
 * Moves a notification to sent/failed once every targeted subscriber has an outcome, and records
 * `notification.delivered` with the totals and per-platform counts — in the caller's transaction, exactly once.
 */
export async function completeNotificationIfDone(
  trx: Kysely<Database>,
  notificationId: string,
  now: number,
): Promise<boolean> {
  const finished = await finishIfComplete(trx, notificationId, now);
  if (!finished) return false;
  const platforms = Object.fromEntries(
    (await platformStats(trx, notificationId)).map((stats) => [
      stats.platform,
      { delivered: stats.delivered, failed: stats.failed },
    ]),
  );
  await recordEvent(trx, {
    accountId: finished.account_id,
    type: 'notification.delivered',
    data: {
      notificationId: finished.id,
      channelCode: finished.channel_code,
      status: finished.status,
      recipientCount: finished.recipient_count,
      delivered: finished.delivered_count,
      failed: finished.failed_count,
      skipped: finished.skipped_count,
      failureReason: finished.failure_reason,
      platforms,
    },
    now,
  });
  return true;
}
