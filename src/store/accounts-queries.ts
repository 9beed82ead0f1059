import type { Kysely, Selectable } from 'kysely';
import { accountSlugFromName, isAccountSlug, suffixedAccountSlug } from '../domain/account-slug.ts';
import { isId, newId } from '../domain/ids.ts';
import type { Plan } from '../domain/plans.ts';
import type { AccountsTable, Database } from './schema.ts';

export type Account = Selectable<AccountsTable>;

/** Tries before giving up on a free slug; each retry draws 30 random bits, so a second one is already unlikely. */
const SLUG_ATTEMPTS = 5;

/**
 * Creates the account with a slug from its name ("Acme GmbH" → "acme-gmbh"), or, when that is taken, the name with a
 * random suffix ("acme-gmbh-k3x9qa"). The insert skips a taken slug (ON CONFLICT DO NOTHING) instead of failing, so
 * it can run inside the caller's transaction on PostgreSQL too, where a failed statement would abort the transaction.
 */
export async function createAccount(
  db: Kysely<Database>,
  input: { name: string; plan: Plan; now: number },
): Promise<Account> {
  const base = accountSlugFromName(input.name);
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt += 1) {
    // receipts_enabled is left to its column default (on), so the same insert serves a database of any migration.
    const columns = {
      id: newId('account', input.now),
      name: input.name,
      plan: input.plan,
      monthly_limit: null,
      default_timezone: null,
      slug: attempt === 0 ? base : suffixedAccountSlug(base),
      created_at: input.now,
    };
    const inserted = await db
      .insertInto('accounts')
      .values(columns)
      .onConflict((conflict) => conflict.column('slug').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return { ...columns, receipts_enabled: 1 };
  }
  throw new Error(`no free account slug found for "${base}" in ${SLUG_ATTEMPTS} attempts`);
}

/** The account a public address names; a string that is not a slug names nothing and is not asked of the database. */
export async function findAccountBySlug(db: Kysely<Database>, slug: string): Promise<Account | undefined> {
  if (!isAccountSlug(slug)) return undefined;
  return db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** A string that is not an account id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findAccount(db: Kysely<Database>, id: string): Promise<Account | undefined> {
  if (!isId('account', id)) return undefined;
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes the plan; `limit` overrides the plan's quota (null returns to the plan's own). */
export async function setAccountPlan(
  db: Kysely<Database>,
  id: string,
  plan: Plan,
  limit: number | null,
): Promise<Account | undefined> {
  if (!isId('account', id)) return undefined;
  return db
    .updateTable('accounts')
    .set({ plan, monthly_limit: limit })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Whether the instance has any account yet, for the first-account sign-up (src/http/signup-policy.ts). With `lock`,
 * inside the caller's transaction, two first sign-ups cannot both see an empty instance: on PostgreSQL the table lock
 * (SHARE ROW EXCLUSIVE conflicts with itself and with inserts) waits for the other transaction to commit; on SQLite
 * the transaction already holds the single write lock (BEGIN IMMEDIATE, src/store/database.ts).
 */
export async function instanceHasAccounts(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Whether the account's pushes carry receipts (docs/engagement.md; `clarion accounts set-receipts`). */
export async function receiptsEnabled(db: Kysely<Database>, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('receipts_enabled').where('id', '=', accountId).executeTakeFirst();
  return Number(row?.receipts_enabled ?? 0) === 1;
}
