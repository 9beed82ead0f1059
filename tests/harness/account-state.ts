import type { TestApp } from './test-app.ts';

const tables = [
  'channels',
  'subscribers',
  'notifications',
  'live_activities',
  'events',
  'idempotency_keys',
  'apps',
  'usage_counters',
] as const;

export type AccountState = Record<(typeof tables)[number], Array<Record<string, unknown>>>;

/**
 * Everything an account has stored: every row of its tables, in a stable order, as the database holds it. Compare
 * before and after a refused request to prove that bad input changed nothing: no row added, removed or altered.
 */
export async function accountState(t: TestApp, accountId: string): Promise<AccountState> {
  const state = {} as AccountState;
  for (const table of tables) {
    // Every column of every row, sorted by content: two states are equal exactly when the rows are.
    const rows = await t.store.db.selectFrom(table).selectAll().where('account_id', '=', accountId).execute();
    state[table] = (rows as Array<Record<string, unknown>>).map(normalized).sort(byContent);
  }
  return state;
}

/** Byte columns as hex, so that equal contents compare equal on both drivers (Buffer and Uint8Array alike). */
function normalized(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([column, value]) => [
      column,
      value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value,
    ]),
  );
}

function byContent(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const left = JSON.stringify(a);
  const right = JSON.stringify(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

export type AccountCounts = Record<(typeof tables)[number], number> & { activeSubscribers: number; quotaUsed: number };

/** How many rows the account has per table, its active subscribers and its quota units used (all periods). */
export async function accountCounts(t: TestApp, accountId: string): Promise<AccountCounts> {
  const state = await accountState(t, accountId);
  const counts = Object.fromEntries(
    Object.entries(state).map(([table, rows]) => [table, rows.length]),
  ) as AccountCounts;
  counts.activeSubscribers = state.subscribers.filter((row) => row.status === 'active').length;
  counts.quotaUsed = state.usage_counters.reduce((sum, row) => sum + Number(row.used), 0);
  return counts;
}
