import type { Command } from 'commander';
import { CHANNEL_CODE_RULE, isChannelCode } from '../domain/channel-code.ts';
import { findAccount } from '../store/accounts-queries.ts';
import { createApiKey } from '../store/api-keys-queries.ts';
import { apiKeyOutput } from './api-key-output.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

export function addKeysCreate(keys: Command): void {
  keys
    .command('create')
    .description('create an API key; its full value is printed once and never again')
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption('--name <name>', 'a name to tell keys apart')
    .option('--channels <codes>', 'comma-separated channel codes the key is limited to (default: every channel)')
    .option('--publishable', 'a publishable key (clr_pk_…) for apps: may only register and unsubscribe subscribers')
    .option('--json', 'print one JSON object')
    .action(
      async (options: { account: string; name: string; channels?: string; publishable?: boolean; json?: boolean }) => {
        if (options.name.trim() === '' || options.name.length > 100)
          throw new CliError('--name must be 1 to 100 characters', 'validation_failed');
        const channels =
          options.channels === undefined
            ? null
            : options.channels
                .split(',')
                .map((code) => code.trim())
                .filter(Boolean);
        if (channels !== null) {
          if (channels.length === 0)
            throw new CliError('--channels needs at least one channel code', 'validation_failed');
          const bad = channels.find((code) => !isChannelCode(code));
          if (bad !== undefined)
            throw new CliError(`--channels: "${bad}" is not a channel code: ${CHANNEL_CODE_RULE}`, 'validation_failed');
        }
        const created = await withStore(async (store) => {
          if (!(await findAccount(store.db, options.account)))
            throw new CliError(`no account ${options.account}`, 'not_found');
          return createApiKey(store.db, {
            accountId: options.account,
            name: options.name.trim(),
            kind: options.publishable ? 'publishable' : 'secret',
            channels,
            now: Date.now(),
          });
        });
        printResult(options, apiKeyOutput(created.row, created.value), [
          `Created ${created.row.kind} key ${created.row.id} "${created.row.name}"${channels ? ` for channels ${channels.join(', ')}` : ' for every channel'}.`,
          '',
          `  ${created.value}`,
          '',
          'Store it now: it is shown only this once.',
        ]);
      },
    );
}
