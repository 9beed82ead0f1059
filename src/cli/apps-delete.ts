import type { Command } from 'commander';
import { channelsOfApp, deleteApp, findApp } from '../store/apps-queries.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

/** `clarion apps delete`: an app and its credentials, refused while a channel delivers through it. */
export function addAppsDelete(apps: Command): void {
  apps
    .command('delete')
    .description('delete an app and its credentials (not while a channel uses it)')
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption('--app <id>', 'app id (app_…)')
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; app: string; json?: boolean }) => {
      await withStore(async (store) => {
        if (!(await findApp(store.db, options.account, options.app)))
          throw new CliError(`no app ${options.app} in account ${options.account}`, 'not_found');
        const channels = await channelsOfApp(store.db, options.app);
        if (channels.length > 0)
          throw new CliError(`channels still deliver through this app: ${channels.join(', ')}`, 'conflict');
        await deleteApp(store.db, options.account, options.app);
      });
      printResult(options, { id: options.app, deleted: true }, [`Deleted app ${options.app}.`]);
    });
}
