import { sql, type Kysely } from 'kysely';
import type { Audience } from '../domain/audience.ts';
import type { Dialect } from '../store/database.ts';
import { insertNotification, type NotificationRow } from '../store/notifications-store.ts';
import { preparedQuery } from '../store/prepared-query.ts';
import type { Database } from '../store/schema.ts';
import { activeInChannelCountQuery } from '../store/subscribers-store.ts';
import { takeQuota, usedInPeriod } from '../store/usage-store.ts';
import type { JobQueue } from './job-queue.ts';
import type { EnqueueInput } from './job-types.ts';
import { JOBS_CHANNEL } from './postgres-queue-driver.ts';

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
 * transaction, or on PostgreSQL the database itself when the caller has nothing else to write with it (see below).
 *
 * On PostgreSQL, where every statement is a round trip (measured, docs/performance.md, "Accept path": 7 statements and
 * ~1.2 ms of server CPU plus ~1.6 ms of database CPU per accepted notification, most of it the client's and the
 * server's work per message, not SQL execution), the usual single dispatch goes as ONE statement with data-modifying
 * CTEs: the quota upsert, the notification INSERT, the job INSERT and the `pg_notify` that wakes the workers. Each
 * write after the quota's depends on the one before it (`WHERE EXISTS` on its RETURNING), so a refused charge stores
 * nothing and notifies no one, and the statement is complete by itself: run outside a transaction it is its own, and
 * the caller saves the BEGIN and COMMIT round trips (src/http/endpoints/notifications/accept-notification.ts; docs/performance.md,
 * "Accept path"). Durable when it returns, as PostgreSQL commits synchronously. On SQLite each
 * statement is a function call in this process, a one-statement form saves nothing, and the group commit
 * (src/store/group-commit.ts) already shares BEGIN and COMMIT; local-time notifications (several dispatches) and
 * targeted sends take the same path, in a transaction.
 */
export async function storeAcceptedNotification(
  db: Kysely<Database>,
  dialect: Dialect,
  queue: JobQueue,
  input: AcceptedNotification,
): Promise<{ used: number; recipientCount: number }> {
  const { quota } = input;
  const [dispatch, ...more] = input.dispatches;
  if (dialect === 'postgres' && dispatch && more.length === 0 && quota.limit >= 1 && input.audience === null) {
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

/**
 * PostgreSQL only (data-modifying CTEs); compiled once per set of notification columns (src/store/prepared-query.ts).
 * INSERT … SELECT rather than VALUES so that each write can depend on the one before; PostgreSQL still types each
 * parameter from the column it is inserted into.
 */
const acceptInOneStatement = preparedQuery(
  (db, param, values: Record<string, unknown>) => {
    const notificationColumns = Object.keys(values).filter(
      (key) => !key.startsWith('job_') && !key.startsWith('quota'),
    );
    const jobColumns = Object.keys(values).filter((key) => key.startsWith('job_'));
    return db
      .with('charged', (cte) =>
        cte
          .insertInto('usage_counters')
          .values({ account_id: param('quotaAccountId'), period: param('quotaPeriod'), used: 1 })
          .onConflict((conflict) =>
            conflict
              .columns(['account_id', 'period'])
              .doUpdateSet((eb) => ({ used: eb('usage_counters.used', '+', 1) }))
              .where('usage_counters.used', '<=', param<number>('quotaMaxUsedBefore')),
          )
          .returning('used'),
      )
      .with('stored', (cte) =>
        cte
          .insertInto('notifications')
          .columns([...notificationColumns, 'recipient_count'] as never)
          .expression(
            cte
              .selectNoFrom((eb) => [
                ...notificationColumns.map((column) => eb.val(param(column)).as(column)),
                activeInChannelCountQuery(db, param('channel_id')).as('recipient_count'),
              ])
              .where(({ exists, selectFrom }) => exists(selectFrom('charged').select('used'))) as never,
          )
          .returning('recipient_count'),
      )
      .with('queued', (cte) =>
        cte
          .insertInto('jobs')
          .columns(jobColumns.map((key) => key.slice('job_'.length)) as never)
          .expression(
            cte
              .selectNoFrom((eb) => jobColumns.map((key) => eb.val(param(key)).as(key.slice('job_'.length))))
              .where(({ exists, selectFrom }) => exists(selectFrom('stored').select('recipient_count'))) as never,
          )
          .onConflict((conflict) => conflict.column('unique_key').doNothing())
          .returning('id'),
      )
      .selectNoFrom((eb) => [
        eb.selectFrom('charged').select('used').as('used'),
        eb.selectFrom('stored').select('recipient_count').as('recipient_count'),
        eb
          .selectFrom('stored')
          .select(sql<string>`pg_notify(${JOBS_CHANNEL}, '')`.as('notified'))
          .as('notified'),
      ]);
  },
  (values) => Object.keys(values).join(),
);
