import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/load-config.ts';
import { addAccountsAddOwner } from './accounts-add-owner.ts';
import { addAccountsCreate } from './accounts-create.ts';
import { addAccountsSetPlan } from './accounts-set-plan.ts';
import { addAccountsSetSlug } from './accounts-set-slug.ts';
import { addAccountsSetTimezone } from './accounts-set-timezone.ts';
import { addAccountsSetReceipts } from './accounts-set-receipts.ts';
import { addBackup } from './backup.ts';
import { addAppsCreate } from './apps-create.ts';
import { addAppsDelete } from './apps-delete.ts';
import { addAppsList } from './apps-list.ts';
import { addAppsUpdate } from './apps-update.ts';
import { addChannelsCreate } from './channels-create.ts';
import { CliError, printError, printResult } from './cli-output.ts';
import { addKeysCreate } from './keys-create.ts';
import { addKeysList } from './keys-list.ts';
import { addKeysRevoke } from './keys-revoke.ts';
import { addKeysRotate } from './keys-rotate.ts';
import { addLiveCancel } from './live-activities/live-cancel.ts';
import { addLiveEnd } from './live-activities/live-end.ts';
import { addLiveStart } from './live-activities/live-start.ts';
import { addLiveUpdate } from './live-activities/live-update.ts';
import { addMigrate } from './migrate.ts';
import { addRestore } from './restore.ts';
import { addSend } from './send.ts';
import { addServe } from './serve.ts';
import { addSubscribersImport } from './subscribers-import.ts';
import { addSubscribersList } from './subscribers-list.ts';
import { addWebPushRotateKeys } from './web-push-rotate-keys.ts';

/** The `clarion` command line (docs/design.md 3.1): one file per command, each taking --json. */
const program = new Command('clarion')
  .description('Clarion push notification service')
  .showHelpAfterError()
  .exitOverride();

// The program's own options: --version, with --json like every command. Positional, so a command's own --json after
// its name stays the command's. The package.json beside src/ and dist/ (both one level below the root).
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
program
  .enablePositionalOptions()
  .allowExcessArguments()
  .option('-V, --version', 'print the version')
  .option('--json', 'with --version: print one JSON object')
  .action((options: { version?: boolean; json?: boolean }, command: Command) => {
    // A root action receives what names no command: said as commander says it without one.
    if (command.args.length > 0) command.error(`error: unknown command '${command.args[0]}'`);
    if (!options.version) command.help({ error: true });
    printResult(options, { version }, [version]);
  });

addServe(program);
addMigrate(program);
addBackup(program);
addRestore(program);
const accounts = program.command('accounts').description('manage accounts');
addAccountsCreate(accounts);
addAccountsAddOwner(accounts);
addAccountsSetPlan(accounts);
addAccountsSetTimezone(accounts);
addAccountsSetReceipts(accounts);
addAccountsSetSlug(accounts);
const apps = program.command('apps').description("manage apps (an account's own push credentials)");
addAppsCreate(apps);
addAppsUpdate(apps);
addAppsList(apps);
addAppsDelete(apps);
const channels = program.command('channels').description('manage channels');
addChannelsCreate(channels);
const subscribers = program.command('subscribers').description('manage subscribers');
addSubscribersImport(subscribers);
addSubscribersList(subscribers);
const keys = program.command('keys').description('manage API keys');
addKeysCreate(keys);
addKeysRevoke(keys);
addKeysRotate(keys);
addKeysList(keys);
const webPush = program.command('web-push').description('manage Web Push (VAPID keys)');
addWebPushRotateKeys(webPush);
// Over HTTP with an API key (CLARION_URL, CLARION_API_KEY), through the client package: no database access needed.
addSend(program);
const live = program.command('live').description('start, update, end and cancel Live Activities');
addLiveStart(live);
addLiveUpdate(live);
addLiveEnd(live);
addLiveCancel(live);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version output exit 0; usage errors were already printed by commander.
    process.exit(error.exitCode);
  }
  printError(process.argv.includes('--json'), error);
  process.exit(error instanceof ConfigError ? 78 : error instanceof CliError ? error.exitCode : 1);
}
