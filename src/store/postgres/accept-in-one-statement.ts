import { sql } from 'kysely';
import { preparedQuery } from '../prepared-query.ts';
import { activeInChannelCountQuery } from '../subscribers-queries.ts';
import { JOBS_CHANNEL } from './postgres-queue-driver.ts';

/**
 * On PostgreSQL, where every statement is a round trip (measured, docs/performance.md, "Accept path": 7 statements and
 * ~1.2 ms of server CPU plus ~1.6 ms of database CPU per accepted notification, most of it the client's and the
 * server's work per message, not SQL execution), the usual single dispatch goes as ONE statement with data-modifying
 * CTEs: the quota upsert, the notification INSERT, the job INSERT and the `pg_notify` that wakes the workers. Each
 * write after the quota's depends on the one before it (`WHERE EXISTS` on its RETURNING), so a refused charge stores
 * nothing and notifies no one (`used` comes back null), and the statement is complete by itself: run outside a
 * transaction it is its own, and the caller saves the BEGIN and COMMIT round trips. Durable when it returns, as
 * PostgreSQL commits synchronously.
 *
 * `values`: `quotaAccountId`, `quotaPeriod`, `quotaMaxUsedBefore`, every notification column by its name, and every
 * job column prefixed `job_`. Compiled once per set of notification columns (src/store/prepared-query.ts). INSERT …
 * SELECT rather than VALUES so that each write can depend on the one before; PostgreSQL still types each parameter
 * from the column it is inserted into.
 */
export const acceptInOneStatement = preparedQuery(
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

export type AcceptInOneStatement = typeof acceptInOneStatement;
