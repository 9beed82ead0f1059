import type { Command } from 'commander';
import { toIso } from '../domain/clock.ts';
import { isPlan, monthlyLimit, planNames, type Plan } from '../domain/plans.ts';
import { hashPassword, passwordProblem } from '../domain/passwords.ts';
import { createAccount } from '../store/accounts-store.ts';
import { addMembership, createUser, findUserByEmail } from '../store/users-store.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

interface Options {
  name: string;
  plan: string;
  ownerEmail?: string;
  ownerPassword?: string;
  json?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function addAccountsCreate(accounts: Command): void {
  accounts
    .command('create')
    .description('create an account, optionally with an owner who can sign in to the dashboard')
    .requiredOption('--name <name>', 'account name')
    .option('--plan <plan>', `plan: ${planNames.join(', ')}`, 'free')
    .option('--owner-email <email>', 'email of the owner (a new user, or an existing one who joins this account)')
    .option('--owner-password <password>', 'password for a new owner')
    .option('--json', 'print one JSON object')
    .action(async (options: Options) => {
      if (!isPlan(options.plan)) throw new CliError(`--plan must be one of ${planNames.join(', ')}`, 'validation_failed');
      if (options.name.trim() === '' || options.name.length > 100) throw new CliError('--name must be 1 to 100 characters', 'validation_failed');
      if (options.ownerEmail !== undefined && !EMAIL.test(options.ownerEmail)) throw new CliError('--owner-email is not an email address', 'validation_failed');
      const plan: Plan = options.plan;
      const result = await withStore(async (store) => {
        const now = Date.now();
        return store.db.transaction().execute(async (trx) => {
          let owner: { id: string; email: string } | null = null;
          if (options.ownerEmail !== undefined) {
            const existing = await findUserByEmail(trx, options.ownerEmail);
            if (existing) {
              owner = existing;
            } else {
              if (options.ownerPassword === undefined) throw new CliError('--owner-password is required for a new owner', 'validation_failed');
              const problem = passwordProblem(options.ownerPassword);
              if (problem) throw new CliError(`--owner-password: ${problem}`, 'validation_failed');
              owner = await createUser(trx, { email: options.ownerEmail, passwordHash: await hashPassword(options.ownerPassword), now });
            }
          }
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
        `Created account ${result.id} (${result.name}) on the ${result.plan} plan: ${result.limit} notifications a month.`,
        ...(result.owner ? [`Owner: ${result.owner.email}`] : []),
      ]);
    });
}
