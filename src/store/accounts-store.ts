import type { Kysely, Selectable } from 'kysely';
import { isId, newId } from '../domain/ids.ts';
import type { Plan } from '../domain/plans.ts';
import type { AccountsTable, Database } from './schema.ts';

export type Account = Selectable<AccountsTable>;

export async function createAccount(db: Kysely<Database>, input: { name: string; plan: Plan; now: number }): Promise<Account> {
  const account: Account = {
    id: newId('account', input.now),
    name: input.name,
    plan: input.plan,
    monthly_limit: null,
    default_timezone: null,
    created_at: input.now,
  };
  await db.insertInto('accounts').values(account).execute();
  return account;
}

/** A string that is not an account id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findAccount(db: Kysely<Database>, id: string): Promise<Account | undefined> {
  if (!isId('account', id)) return undefined;
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes the plan; `limit` overrides the plan's quota (null returns to the plan's own). */
export async function setAccountPlan(db: Kysely<Database>, id: string, plan: Plan, limit: number | null): Promise<Account | undefined> {
  if (!isId('account', id)) return undefined;
  return db.updateTable('accounts').set({ plan, monthly_limit: limit }).where('id', '=', id).returningAll().executeTakeFirst();
}
