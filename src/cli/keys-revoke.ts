import type { Command } from 'commander';
import { revokeApiKey } from '../store/api-keys-queries.ts';
import { apiKeyOutput } from './api-key-output.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

export function addKeysRevoke(keys: Command): void {
  keys
    .command('revoke')
    .description('revoke an API key; the very next request with it is refused')
    .requiredOption('--key-id <id>', 'key id (key_…)')
    .option('--json', 'print one JSON object')
    .action(async (options: { keyId: string; json?: boolean }) => {
      const row = await withStore((store) => revokeApiKey(store.db, options.keyId, Date.now()));
      if (!row) throw new CliError(`no key ${options.keyId}`, 'not_found');
      printResult(options, apiKeyOutput(row), [`Revoked key ${row.id} "${row.name}" (${row.key_start}…).`]);
    });
}
