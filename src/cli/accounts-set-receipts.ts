import type { Command } from 'commander';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

/** Receipts on or off for an account (docs/engagement.md, "Privacy"): off, its pushes carry none and none is stored. */
export function addAccountsSetReceipts(accounts: Command): void {
  accounts
    .command('set-receipts')
    .description("turn the receipts in an account's pushes on (the default) or off (docs/engagement.md)")
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption('--receipts <on|off>', 'on: every push carries a receipt; off: none, and none is stored')
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; receipts: string; json?: boolean }) => {
      if (options.receipts !== 'on' && options.receipts !== 'off')
        throw new CliError('--receipts must be on or off', 'validation_failed');
      const account = await withStore((store) =>
        store.db
          .updateTable('accounts')
          .set({ receipts_enabled: options.receipts === 'on' ? 1 : 0 })
          .where('id', '=', options.account)
          .returningAll()
          .executeTakeFirst(),
      );
      if (!account) throw new CliError(`no account ${options.account}`, 'not_found');
      const on = Number(account.receipts_enabled) === 1;
      printResult(options, { id: account.id, name: account.name, receipts: on }, [
        on
          ? `Account ${account.id}: pushes carry receipts; opens and actions are counted.`
          : `Account ${account.id}: pushes carry no receipts, and none is stored.`,
      ]);
    });
}
