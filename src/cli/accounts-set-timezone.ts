import type { Command } from 'commander';
import { isTimeZone, TIME_ZONE_PROBLEM } from '../domain/time-zone.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

export function addAccountsSetTimezone(accounts: Command): void {
  accounts
    .command('set-timezone')
    .description('set the time zone used for local-time delivery to subscribers that did not give one (default UTC)')
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption('--timezone <zone>', 'IANA time zone, e.g. Europe/Berlin or UTC; "none" to clear')
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; timezone: string; json?: boolean }) => {
      const timezone = options.timezone === 'none' ? null : options.timezone;
      if (timezone !== null && !isTimeZone(timezone))
        throw new CliError(`--timezone ${TIME_ZONE_PROBLEM}`, 'validation_failed');
      const account = await withStore((store) =>
        store.db
          .updateTable('accounts')
          .set({ default_timezone: timezone })
          .where('id', '=', options.account)
          .returningAll()
          .executeTakeFirst(),
      );
      if (!account) throw new CliError(`no account ${options.account}`, 'not_found');
      printResult(options, { id: account.id, name: account.name, defaultTimezone: account.default_timezone }, [
        `Account ${account.id} delivers local-time notifications in ${account.default_timezone ?? 'UTC'} to subscribers without a time zone.`,
      ]);
    });
}
