import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/domain/passwords.ts';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { addMembership, createUser, findUserByEmail, listUserAccounts } from '../../src/store/users-queries.ts';
import { runCli } from '../harness/cli-process.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/**
 * `clarion accounts add-owner`: the way into the dashboard for an account made with `clarion accounts create` and no
 * owner (sign-up is closed once an instance has an account). Run as a separate process on the dialect under test.
 */
let test: TestStore;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  test = await openTestStore({ isolated: true });
  env = { CLARION_DATA_DIR: test.dataDir, CLARION_DATABASE_URL: test.databaseUrl };
});
afterAll(async () => {
  await test?.close();
});

const newAccount = (name = 'Acme') => createAccount(test.store.db, { name, plan: 'free', now: Date.now() });
const uniqueEmail = (who: string) => `${who}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
/** An owner made straight in the database, as the dashboard's sign-up makes one: the setup of a case, not its subject. */
async function ownerInStore(accountId: string, email: string, password: string): Promise<void> {
  const now = Date.now();
  const user = await createUser(test.store.db, { email, passwordHash: await hashPassword(password), now });
  await addMembership(test.store.db, { accountId, userId: user.id, role: 'owner', now });
}
const addOwner = (args: string[]) => runCli(['accounts', 'add-owner', ...args, '--json'], env);
const ownersOf = async (accountId: string) =>
  test.store.db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.email', 'memberships.role'])
    .where('account_id', '=', accountId)
    .execute();

describe('clarion accounts add-owner', () => {
  it('makes a new user, with that password, the owner of an account that had none', async () => {
    const account = await newAccount();
    const email = uniqueEmail('Ada');
    const result = addOwner(['--account', account.id, '--email', email, '--password', 'correct horse battery']);
    expect(result.status, result.stderr).toBe(0);
    const user = await findUserByEmail(test.store.db, email);
    expect(result.json).toEqual({
      accountId: account.id,
      accountName: 'Acme',
      owner: { id: user!.id, email: email.toLowerCase() },
      newUser: true,
    });
    expect(await verifyPassword('correct horse battery', user!.password_hash)).toBe(true);
    expect(await listUserAccounts(test.store.db, user!.id)).toMatchObject([{ accountId: account.id, role: 'owner' }]);

    const human = runCli(
      ['accounts', 'add-owner', '--account', (await newAccount('Second')).id, '--email', email],
      env,
    );
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout.trim()).toMatch(
      new RegExp(
        `^${email.toLowerCase().replace(/[.+]/g, '\\$&')} is now an owner of acc_\\S+ \\(Second\\): they sign in to the dashboard with their own password\\.$`,
      ),
    );
  }, 90_000);

  it('adds an existing user without a password, keeping theirs; an account may have several owners', async () => {
    const account = await newAccount();
    const first = uniqueEmail('first');
    const second = uniqueEmail('second');
    await ownerInStore(account.id, first, 'first password 123');
    await ownerInStore((await newAccount('Other')).id, second, 'second password 1');

    const joined = addOwner(['--account', account.id, '--email', second.toUpperCase()]);
    expect(joined.status, joined.stderr).toBe(0);
    expect(joined.json).toMatchObject({ accountId: account.id, owner: { email: second }, newUser: false });
    expect(
      await verifyPassword('second password 1', (await findUserByEmail(test.store.db, second))!.password_hash),
    ).toBe(true);
    expect((await ownersOf(account.id)).map((row) => `${row.email}:${row.role}`).sort()).toEqual(
      [`${first}:owner`, `${second}:owner`].sort(),
    );
  });

  it.each<[string, (accountId: string, takenEmail: string) => string[], string, RegExp]>([
    [
      'an unknown account',
      (_id, _taken) => ['--account', 'acc_nope', '--email', uniqueEmail('x'), '--password', 'long enough pw'],
      'not_found',
      /^no account acc_nope$/,
    ],
    [
      'an email that is not one',
      (id) => ['--account', id, '--email', 'not-an-email', '--password', 'long enough pw'],
      'validation_failed',
      /^--email is not an email address/,
    ],
    [
      'a weak password',
      (id) => ['--account', id, '--email', uniqueEmail('weak'), '--password', 'short'],
      'validation_failed',
      /^--password: a password needs at least 10 characters$/,
    ],
    [
      'a new user without a password',
      (id) => ['--account', id, '--email', uniqueEmail('nopw')],
      'validation_failed',
      /^--password is required for a new user/,
    ],
    [
      'a password for a user who exists (it would not change theirs)',
      (id, taken) => ['--account', id, '--email', taken, '--password', 'another long password'],
      'conflict',
      /already exists.*leave out --password/,
    ],
    [
      'a user who is already an owner of the account',
      (id, taken) => ['--account', id, '--email', taken],
      'conflict',
      /is already an owner of acc_/,
    ],
  ])('refuses %s and changes nothing', async (_name, args, code, message) => {
    const account = await newAccount();
    const taken = uniqueEmail('taken');
    await ownerInStore(account.id, taken, 'the first password');
    const users = await test.store.db.selectFrom('users').select('id').orderBy('id').execute();
    const owners = await ownersOf(account.id);
    const takenHash = (await findUserByEmail(test.store.db, taken))!.password_hash;

    const result = addOwner(args(account.id, taken));
    expect(result.status).toBe(1);
    expect(result.json.error.code).toBe(code);
    expect(result.json.error.message).toMatch(message);
    expect(await test.store.db.selectFrom('users').select('id').orderBy('id').execute()).toEqual(users);
    expect(await ownersOf(account.id)).toEqual(owners);
    expect((await findUserByEmail(test.store.db, taken))!.password_hash).toBe(takenHash);
  });

  it('holds accounts create --owner-email to the same rules: an existing user joins without a password, and is refused one', async () => {
    const email = uniqueEmail('creator');
    await ownerInStore((await newAccount()).id, email, 'the first password');
    const joined = runCli(['accounts', 'create', '--name', 'Joined', '--owner-email', email, '--json'], env);
    expect(joined.status, joined.stderr).toBe(0);
    expect(joined.json.owner).toMatchObject({ email });
    const refused = runCli(
      [
        'accounts',
        'create',
        '--name',
        'Refused',
        '--owner-email',
        email,
        '--owner-password',
        'a new long password',
        '--json',
      ],
      env,
    );
    expect(refused.json.error).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/already exists.*leave out --owner-password/),
    });
    expect(await test.store.db.selectFrom('accounts').select('id').where('name', '=', 'Refused').execute()).toEqual([]);
  }, 90_000);
});
