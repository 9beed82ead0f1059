import type { Kysely, Selectable } from 'kysely';
import { isId, newId } from '../domain/ids.ts';
import type { Database, UsersTable } from './schema.ts';

export type User = Selectable<UsersTable>;

/** Emails are compared case-insensitively: stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createUser(
  db: Kysely<Database>,
  input: { email: string; passwordHash: string; now: number },
): Promise<User> {
  const user: User = {
    id: newId('user', input.now),
    email: normalizeEmail(input.email),
    password_hash: input.passwordHash,
    created_at: input.now,
  };
  await db.insertInto('users').values(user).execute();
  return user;
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

export async function addMembership(
  db: Kysely<Database>,
  input: { accountId: string; userId: string; role: 'owner' | 'member'; now: number },
): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ account_id: input.accountId, user_id: input.userId, role: input.role, created_at: input.now })
    .onConflict((conflict) => conflict.columns(['account_id', 'user_id']).doUpdateSet({ role: input.role }))
    .execute();
}

/** A string that is not a user id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findUser(db: Kysely<Database>, id: string): Promise<User | undefined> {
  if (!isId('user', id)) return undefined;
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An account a user belongs to, as the dashboard's account switcher lists it. */
export interface UserAccount {
  accountId: string;
  name: string;
  plan: string;
  role: 'owner' | 'member';
  joinedAt: number;
}

/** The user's accounts, in the order they joined them (the first is where a sign-in lands). */
export async function listUserAccounts(db: Kysely<Database>, userId: string): Promise<UserAccount[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select([
      'accounts.id as accountId',
      'accounts.name as name',
      'accounts.plan as plan',
      'memberships.role as role',
      'memberships.created_at as joinedAt',
    ])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('accounts.id')
    .execute();
  return rows.map((row) => ({ ...row, joinedAt: Number(row.joinedAt) }));
}
