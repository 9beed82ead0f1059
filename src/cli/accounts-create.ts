import type { Command } from 'commander';
import { toIso } from '../domain/clock.ts';
import { isPlan, monthlyLimit, planNames, type Plan } from '../domain/plans.ts';
import { createAccount } from '../store/accounts-queries.ts';
import { addMembership } from '../store/users-queries.ts';
import { checkOwnerEmail, ownerUser, type OwnerFlags } from './account-owner.ts';
import { CliError, countOf, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

interface Options {
  name: string;
  plan: string;
  ownerEmail?: string;
  ownerPassword?: string;
  json?: boolean;
}

const FLAGS: OwnerFlags = { email: '--owner-email', password: '--owner-password' };

export function addAccountsCreate(accounts: Command): void {
  accounts
    .command('create')
    .description('create an account, optionally with an owner who can sign in to the dashboard')
    .requiredOption('--name <name>', 'account name')
    .option('--plan <plan>', `plan: ${planNames.join(', ')}`, 'free')
    .option('--owner-email <email>', 'email of the owner (a new user, or an existing one who joins this account)')
    .option(
      '--owner-password <password>',
      'password for a new owner (at least 10 characters); not for an existing user',
    )
    .option('--json', 'print one JSON object')
    .action(async (options: Options) => {
      if (!isPlan(options.plan))
        throw new CliError(`--plan must be one of ${planNames.join(', ')}`, 'validation_failed');
      if (options.name.trim() === '' || options.name.length > 100)
        throw new CliError('--name must be 1 to 100 characters', 'validation_failed');
      if (options.ownerEmail !== undefined) checkOwnerEmail(options.ownerEmail, FLAGS);
      const plan: Plan = options.plan;
      const result = await withStore(async (store) => {
        const now = Date.now();
        return store.db.transaction().execute(async (trx) => {
          const owner =
            options.ownerEmail === undefined
              ? null
              : (
                  await ownerUser(trx, {
                    email: options.ownerEmail,
                    password: options.ownerPassword,
                    now,
                    flags: FLAGS,
                  })
                ).user;
          const account = await createAccount(trx, { name: options.name.trim(), plan, now });
          if (owner) await addMembership(trx, { accountId: account.id, userId: owner.id, role: 'owner', now });
          return {
            id: account.id,
            name: account.name,
            plan,
            limit: monthlyLimit(plan, null),
            createdAt: toIso(account.created_at),
            owner: owner ? { id: owner.id, email: owner.email } : null,
          };
        });
      });
      printResult(options, result, [
        `Created account ${result.id} (${result.name}) on the ${result.plan} plan: ${countOf(result.limit, 'notification')} a month.`,
        ...(result.owner ? [`Owner: ${result.owner.email}`] : []),
      ]);
    });
}
