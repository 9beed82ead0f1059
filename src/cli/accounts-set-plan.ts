import type { Command } from 'commander';
import { isPlan, monthlyLimit, planNames } from '../domain/plans.ts';
import { setAccountPlan } from '../store/accounts-queries.ts';
import { CliError, countOf, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';
import { parseWholeNumber } from './cli-parse.ts';

export function addAccountsSetPlan(accounts: Command): void {
  accounts
    .command('set-plan')
    .description("change an account's plan, optionally overriding its monthly limit")
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption('--plan <plan>', `plan: ${planNames.join(', ')}`)
    .option('--limit <n>', "monthly notification limit instead of the plan's quota")
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; plan: string; limit?: string; json?: boolean }) => {
      const plan = options.plan;
      if (!isPlan(plan)) throw new CliError(`--plan must be one of ${planNames.join(', ')}`, 'validation_failed');
      const limit = options.limit === undefined ? null : parseWholeNumber('--limit', options.limit, 0, 1_000_000_000);
      const account = await withStore((store) => setAccountPlan(store.db, options.account, plan, limit));
      if (!account) throw new CliError(`no account ${options.account}`, 'not_found');
      const result = {
        id: account.id,
        name: account.name,
        plan,
        limit: monthlyLimit(plan, limit),
        limitOverride: limit,
      };
      printResult(options, result, [
        `Account ${account.id} is on the ${plan} plan: ${countOf(result.limit, 'notification')} a month.`,
      ]);
    });
}
