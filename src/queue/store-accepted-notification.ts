import type { Kysely } from 'kysely';
import type { Audience } from '../domain/audience.ts';
import type { Store } from '../store/database.ts';
import { insertNotification, type NotificationRow } from '../store/notifications-queries.ts';
import type { Database } from '../store/schema.ts';
import { activeInChannelCountQuery } from '../store/subscribers-queries.ts';
import { takeQuota, usedInPeriod } from '../store/usage-queries.ts';
import type { JobQueue } from './job-queue.ts';
import type { EnqueueInput } from './job-types.ts';

export interface AcceptedNotification {
  /** The account's quota charge: one unit of `period`, only while the count stays within `limit`. */
  quota: { accountId: string; period: string; limit: number };
  notification: Omit<NotificationRow, 'recipient_count'>;
  /** Its dispatch jobs (the outbox): stored with it or not at all. */
  dispatches: EnqueueInput[];
  /**
   * The error to throw when the quota is used up, given the count used. It is thrown, never returned, so that the
   * caller's transaction rolls back whatever this function stored before it knew (see below).
   */
  quotaRefused: (used: number) => Error;
  /**
   * A targeted send's audience (src/store/audience-filter.ts), counted in the INSERT's own subquery; null for the
   * whole channel, which takes the prepared statements below.
   */
  audience: Audience | null;
}

/**
 * The writes of accepting a notification: charge the quota, store the notification with its recipient count, enqueue
 * its dispatch jobs, all or nothing. Returns the quota's new count and the recipient count. `db` is the caller's
 * transaction, or the database itself when the caller has nothing else to write with it (see below).
 *
 * Where the store can write all of it in one statement (`Store.acceptInOneStatement`: PostgreSQL, where each statement
 * is a round trip) the usual single dispatch for the whole channel goes that way, complete by itself, so the caller
 * may run it outside a transaction (`oneWrite`, src/http/endpoints/notifications/accept-notification.ts). Elsewhere,
 * and for local-time notifications (several dispatches) and targeted sends, it is a few statements in the caller's
 * transaction; on SQLite each is a function call in this process and the group commit
 * (src/store/sqlite/group-commit.ts) already shares BEGIN and COMMIT.
 */
export async function storeAcceptedNotification(
  db: Kysely<Database>,
  store: Store,
  queue: JobQueue,
  input: AcceptedNotification,
): Promise<{ used: number; recipientCount: number }> {
  const { quota } = input;
  const [dispatch, ...more] = input.dispatches;
  const { acceptInOneStatement } = store;
  if (acceptInOneStatement && dispatch && more.length === 0 && quota.limit >= 1 && input.audience === null) {
    const job = queue.newJobRow(dispatch);
    const values: Record<string, unknown> = {
      quotaAccountId: quota.accountId,
      quotaPeriod: quota.period,
      quotaMaxUsedBefore: quota.limit - 1,
    };
    for (const [column, value] of Object.entries(input.notification)) values[column] = value;
    for (const [column, value] of Object.entries(job)) values[`job_${column}`] = value;
    const [row] = await acceptInOneStatement(db, values);
    if (row?.used === null || row?.used === undefined)
      throw input.quotaRefused(await usedInPeriod(db, quota.accountId, quota.period));
    queue.wakeLocalWorkers();
    return { used: Number(row.used), recipientCount: Number(row.recipient_count) };
  }
  if (!db.isTransaction) return db.transaction().execute((trx) => storeInStatements(trx, queue, input));
  return storeInStatements(db, queue, input);
}

async function storeInStatements(
  trx: Kysely<Database>,
  queue: JobQueue,
  input: AcceptedNotification,
): Promise<{ used: number; recipientCount: number }> {
  const charged = await takeQuota(trx, input.quota);
  if (!charged.taken) throw input.quotaRefused(charged.used);
  const recipientCount = await insertNotification(
    trx,
    input.notification,
    input.audience === null ? undefined : activeInChannelCountQuery(trx, input.notification.channel_id, input.audience),
  );
  for (const job of input.dispatches) await queue.enqueue(trx, job);
  return { used: charged.used, recipientCount };
}
