import type { Command } from 'commander';
import { parseDuration } from '../config/duration.ts';
import { toIso } from '../domain/clock.ts';
import { findApiKey, MAX_ROTATION_GRACE_MS, rotateApiKey } from '../store/api-keys-queries.ts';
import { apiKeyOutput } from './api-key-output.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

export function addKeysRotate(keys: Command): void {
  keys
    .command('rotate')
    .description('issue a new value for a key (same name, kind and scope) and expire the old one')
    .requiredOption('--key-id <id>', 'key id (key_…)')
    .option('--grace <duration>', 'how long the old value keeps working, e.g. 0s, 30m, 24h; at most 7d', '0s')
    .option('--json', 'print one JSON object')
    .action(async (options: { keyId: string; grace: string; json?: boolean }) => {
      let graceMs: number;
      try {
        graceMs = parseDuration(options.grace);
      } catch (error) {
        throw new CliError(`--grace: ${(error as Error).message}`, 'validation_failed');
      }
      if (graceMs > MAX_ROTATION_GRACE_MS) throw new CliError('--grace can be at most 7d', 'validation_failed');
      const result = await withStore(async (store) => {
        const now = Date.now();
        const created = await rotateApiKey(store.db, options.keyId, { graceMs, now });
        if (!created)
          throw new CliError(
            `no active key ${options.keyId}: unknown, revoked, expired, or already rotated`,
            'not_found',
          );
        const old = (await findApiKey(store.db, options.keyId))!;
        return { created, old };
      });
      const oldExpiresAt = toIso(result.old.expires_at!);
      printResult(
        options,
        {
          ...apiKeyOutput(result.created.row, result.created.value),
          replaces: result.old.id,
          oldKeyExpiresAt: oldExpiresAt,
        },
        [
          `Rotated key "${result.created.row.name}": new key ${result.created.row.id}; the old one stops working at ${oldExpiresAt}.`,
          '',
          `  ${result.created.value}`,
          '',
          'Store it now: it is shown only this once.',
        ],
      );
    });
}
