import type { Command } from 'commander';
import { isApiKeyActive, listApiKeys } from '../store/api-keys-queries.ts';
import { apiKeyOutput } from './api-key-output.ts';
import { printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

export function addKeysList(keys: Command): void {
  keys
    .command('list')
    .description("list an account's API keys (never their values)")
    .requiredOption('--account <id>', 'account id (acc_…)')
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; json?: boolean }) => {
      const rows = await withStore((store) => listApiKeys(store.db, options.account));
      const now = Date.now();
      printResult(
        options,
        { keys: rows.map((row) => ({ ...apiKeyOutput(row), active: isApiKeyActive(row, now) })) },
        rows.length === 0
          ? ['No keys.']
          : rows.map(
              (row) =>
                `${row.id}  ${row.key_start}…  ${row.kind.padEnd(11)}  ${isApiKeyActive(row, now) ? 'active ' : 'inactive'}  ${row.name}`,
            ),
      );
    });
}
