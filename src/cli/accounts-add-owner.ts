import type { Command } from 'commander';
import { findAccount } from '../store/accounts-queries.ts';
import { addMembership, listUserAccounts } from '../store/users-queries.ts';
import { checkOwnerEmail, ownerUser, type OwnerFlags } from './account-owner.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

const FLAGS: OwnerFlags = { email: '--email', password: '--password' };

/**
 * `clarion accounts add-owner`: a dashboard owner for an account, such as one made by `clarion accounts create`
 * without `--owner-email`. Sign-up is closed once an instance has an account (src/http/signup-policy.ts), so without
 * this such an account could never be used from the dashboard. A new user gets the password given; an existing user
 * joins with their own.
 */
export function addAccountsAddOwner(accounts: Command): void {
  accounts
    .command('add-owner')
    .description('make a user an owner of an account, who can then sign in to the dashboard')
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption('--email <email>', "the owner's email: a new user, or an existing one who joins this account")
    .option('--password <password>', 'password for a new user (at least 10 characters); not for an existing one')
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; email: string; password?: string; json?: boolean }) => {
      checkOwnerEmail(options.email, FLAGS);
      const result = await withStore((store) =>
        store.db.transaction().execute(async (trx) => {
          const account = await findAccount(trx, options.account);
          if (!account) throw new CliError(`no account ${options.account}`, 'not_found');
          const now = Date.now();
          const { user, created } = await ownerUser(trx, {
            email: options.email,
            password: options.password,
            now,
            flags: FLAGS,
          });
          const memberships = created ? [] : await listUserAccounts(trx, user.id);
          if (memberships.some((membership) => membership.accountId === account.id && membership.role === 'owner')) {
            throw new CliError(`${user.email} is already an owner of ${account.id}`, 'conflict');
          }
          // A member of the account becomes an owner (addMembership updates the role).
          await addMembership(trx, { accountId: account.id, userId: user.id, role: 'owner', now });
          return { accountId: account.id, accountName: account.name, owner: user, newUser: created };
        }),
      );
      printResult(options, result, [
        `${result.owner.email} is now an owner of ${result.accountId} (${result.accountName}): ${result.newUser ? 'they sign in to the dashboard with the password given' : 'they sign in to the dashboard with their own password'}.`,
      ]);
    });
}
