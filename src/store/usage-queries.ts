import type { Kysely } from 'kysely';
import { preparedQuery } from './prepared-query.ts';
import type { Database } from './schema.ts';

export type QuotaResult = { taken: true; used: number } | { taken: false; used: number };

/**
 * Takes `units` from the account's counter for the period, only if that stays within `limit`.
 * One upsert does the check and the increment: it creates the period's counter at `units`, or adds `units` to it
 * only when the sum stays within the limit, and returns the new count (no row: refused). Two concurrent requests
 * cannot both take the last unit: PostgreSQL re-evaluates the conflict's WHERE after waiting for the row lock, and
 * SQLite runs it under its single write lock. Call it inside the transaction that stores what the units pay for, so
 * a rollback returns them. (It was an INSERT … DO NOTHING and then a conditional UPDATE: one statement fewer on
 * every accepted notification, docs/performance.md, "Accept path".)
 */
export async function takeQuota(
  trx: Kysely<Database>,
  input: { accountId: string; period: string; limit: number; units?: number },
): Promise<QuotaResult> {
  const units = input.units ?? 1;
  if (units > input.limit) return { taken: false, used: await usedInPeriod(trx, input.accountId, input.period) };
  const [row] = await takeQuotaUpsert(trx, {
    accountId: input.accountId,
    period: input.period,
    units,
    maxUsedBefore: input.limit - units,
  });
  if (row) return { taken: true, used: Number(row.used) };
  return { taken: false, used: await usedInPeriod(trx, input.accountId, input.period) };
}

/** Compiled once per dialect (src/store/prepared-query.ts): it runs on every accepted notification. */
const takeQuotaUpsert = preparedQuery(
  (db, param, _values: { accountId: string; period: string; units: number; maxUsedBefore: number }) =>
    db
      .insertInto('usage_counters')
      .values({ account_id: param('accountId'), period: param('period'), used: param('units') })
      .onConflict((conflict) =>
        conflict
          .columns(['account_id', 'period'])
          .doUpdateSet((eb) => ({ used: eb('usage_counters.used', '+', param<number>('units')) }))
          .where('usage_counters.used', '<=', param<number>('maxUsedBefore')),
      )
      .returning('used'),
);

/** Gives units back (a canceled scheduled notification); never below zero. */
export async function refundQuota(
  trx: Kysely<Database>,
  input: { accountId: string; period: string; units?: number },
): Promise<void> {
  const units = input.units ?? 1;
  await trx
    .updateTable('usage_counters')
    .set((eb) => ({ used: eb('used', '-', units) }))
    .where('account_id', '=', input.accountId)
    .where('period', '=', input.period)
    .where('used', '>=', units)
    .execute();
}

export async function usedInPeriod(db: Kysely<Database>, accountId: string, period: string): Promise<number> {
  const row = await db
    .selectFrom('usage_counters')
    .select('used')
    .where('account_id', '=', accountId)
    .where('period', '=', period)
    .executeTakeFirst();
  return row ? Number(row.used) : 0;
}
