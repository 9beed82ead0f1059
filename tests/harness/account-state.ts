import type { TestApp } from './test-app.ts';

const tables = ['channels', 'subscribers', 'notifications', 'live_activities', 'events', 'idempotency_keys', 'apps'] as const;

export type AccountState = Record<(typeof tables)[number] | 'activeSubscribers' | 'quotaUsed', number>;

/**
 * Everything an account has stored: rows per table, active subscribers and quota units used (all periods).
 * Compare before and after a refused request to prove that bad input changed nothing.
 */
export async function accountState(t: TestApp, accountId: string): Promise<AccountState> {
  const db = t.store.db;
  const state = {} as AccountState;
  for (const table of tables) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    state[table] = Number(row.count);
  }
  const active = await db
    .selectFrom('subscribers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  state.activeSubscribers = Number(active.count);
  const usage = await db.selectFrom('usage_counters').select('used').where('account_id', '=', accountId).execute();
  state.quotaUsed = usage.reduce((sum, row) => sum + Number(row.used), 0);
  return state;
}
