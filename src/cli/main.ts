import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/load-config.ts';
import { CliError, printError, printResult } from './cli-output.ts';

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

/** The command groups, with what `clarion --help` says of each. */
const groups: Record<string, string> = {
  accounts: 'manage accounts',
  apps: "manage apps (an account's own push credentials)",
  channels: 'manage channels',
  subscribers: 'manage subscribers',
  keys: 'manage API keys',
  'web-push': 'manage Web Push (VAPID keys)',
  live: 'start, update, end and cancel Live Activities',
};

/**
 * The command table, in `clarion --help`'s order: each command's group (if any), name, and the module that declares
 * it (its options and action). `send` and `live …` go over HTTP with an API key (CLARION_URL, CLARION_API_KEY),
 * through the client package: no database access needed.
 */
const commands: Array<{ group?: string; name: string; load: () => Promise<(parent: Command) => void> }> = [
  { name: 'serve', load: async () => (await import('./serve.ts')).addServe },
  { name: 'migrate', load: async () => (await import('./migrate.ts')).addMigrate },
  { name: 'backup', load: async () => (await import('./backup.ts')).addBackup },
  { name: 'restore', load: async () => (await import('./restore.ts')).addRestore },
  { group: 'accounts', name: 'create', load: async () => (await import('./accounts-create.ts')).addAccountsCreate },
  {
    group: 'accounts',
    name: 'add-owner',
    load: async () => (await import('./accounts-add-owner.ts')).addAccountsAddOwner,
  },
  {
    group: 'accounts',
    name: 'set-plan',
    load: async () => (await import('./accounts-set-plan.ts')).addAccountsSetPlan,
  },
  {
    group: 'accounts',
    name: 'set-timezone',
    load: async () => (await import('./accounts-set-timezone.ts')).addAccountsSetTimezone,
  },
  {
    group: 'accounts',
    name: 'set-receipts',
    load: async () => (await import('./accounts-set-receipts.ts')).addAccountsSetReceipts,
  },
  {
    group: 'accounts',
    name: 'set-slug',
    load: async () => (await import('./accounts-set-slug.ts')).addAccountsSetSlug,
  },
  { group: 'apps', name: 'create', load: async () => (await import('./apps-create.ts')).addAppsCreate },
  { group: 'apps', name: 'update', load: async () => (await import('./apps-update.ts')).addAppsUpdate },
  { group: 'apps', name: 'list', load: async () => (await import('./apps-list.ts')).addAppsList },
  { group: 'apps', name: 'delete', load: async () => (await import('./apps-delete.ts')).addAppsDelete },
  { group: 'channels', name: 'create', load: async () => (await import('./channels-create.ts')).addChannelsCreate },
  {
    group: 'subscribers',
    name: 'import',
    load: async () => (await import('./subscribers-import.ts')).addSubscribersImport,
  },
  { group: 'subscribers', name: 'list', load: async () => (await import('./subscribers-list.ts')).addSubscribersList },
  { group: 'keys', name: 'create', load: async () => (await import('./keys-create.ts')).addKeysCreate },
  { group: 'keys', name: 'revoke', load: async () => (await import('./keys-revoke.ts')).addKeysRevoke },
  { group: 'keys', name: 'rotate', load: async () => (await import('./keys-rotate.ts')).addKeysRotate },
  { group: 'keys', name: 'list', load: async () => (await import('./keys-list.ts')).addKeysList },
  {
    group: 'web-push',
    name: 'rotate-keys',
    load: async () => (await import('./web-push-rotate-keys.ts')).addWebPushRotateKeys,
  },
  { name: 'send', load: async () => (await import('./send.ts')).addSend },
  { group: 'live', name: 'start', load: async () => (await import('./live-activities/live-start.ts')).addLiveStart },
  { group: 'live', name: 'update', load: async () => (await import('./live-activities/live-update.ts')).addLiveUpdate },
  { group: 'live', name: 'end', load: async () => (await import('./live-activities/live-end.ts')).addLiveEnd },
  { group: 'live', name: 'cancel', load: async () => (await import('./live-activities/live-cancel.ts')).addLiveCancel },
];

/**
 * The commands a command line names: `clarion keys list …` needs keys-list.ts alone, so a process loads only the
 * module of the command it runs (and what that imports) — `clarion serve` none of the others. A line that names no
 * command of the table (help, a group alone, a typo) gets them all, for commander's help and suggestions.
 */
function commandsNamed(args: string[]): typeof commands {
  // The program's own options take no values, so the first words that are not options name the command.
  const [first, second] = args.filter((arg) => !arg.startsWith('-'));
  const named = commands.filter((row) =>
    row.group === undefined ? row.name === first : row.group === first && row.name === second,
  );
  return named.length === 1 ? named : commands;
}

const groupCommands = new Map<string, Command>();
const wanted = commandsNamed(process.argv.slice(2));
const declare = await Promise.all(wanted.map((row) => row.load()));
for (const row of commands) {
  if (row.group !== undefined && !groupCommands.has(row.group))
    groupCommands.set(row.group, program.command(row.group).description(groups[row.group]!));
  const index = wanted.indexOf(row);
  if (index !== -1) declare[index]!(row.group === undefined ? program : groupCommands.get(row.group)!);
}

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
