import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config/load-config.ts';
import { resolveSecretKey } from '../config/secret-key.ts';
import { resolveVapidKeys } from '../delivery/web-push/vapid-keys.ts';
import { SecretBoxError } from '../domain/secret-box.ts';
import { openStore } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';
import {
  BackupError,
  describeSqliteBackup,
  existingInstanceFiles,
  restoreSqliteBackup,
} from '../store/sqlite/sqlite-backup.ts';
import { POSTGRES_BACKUP_HINT } from './backup.ts';
import { CliError, printResult } from './cli-output.ts';

/**
 * `clarion restore --from FILE`: fills an empty CLARION_DATA_DIR from a `clarion backup` file — the database, and the
 * secret key when the backup carries it (otherwise CLARION_SECRET_KEY must be set). Checks that the key opens the
 * restored data (the stored VAPID private key) and undoes the restore if it does not. `clarion serve` then migrates
 * the database if the backup came from an older version.
 */
export function addRestore(program: Command): void {
  program
    .command('restore')
    .description('fill an empty data directory from a `clarion backup` file (SQLite)')
    .requiredOption('--from <file>', 'the backup file')
    .option('--json', 'print one JSON object')
    .action(async (options: { from: string; json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) throw new CliError(POSTGRES_BACKUP_HINT, 'postgres_backup');
      const file = resolve(options.from);
      try {
        const backup = describeSqliteBackup(file);
        const existing = existingInstanceFiles(config.dataDir);
        if (existing.length > 0) {
          throw new CliError(
            `${config.dataDir} already holds an instance (${existing.join(', ')}): restore fills an empty data directory; move it aside first`,
            'conflict',
          );
        }
        const backupKey = backup.secretKey ? Buffer.from(backup.secretKey, 'hex') : null;
        const configuredKey = config.secretKey ? resolveSecretKey(config.secretKey, config.dataDir) : null;
        if (!backupKey && !configuredKey) {
          throw new CliError(
            'this backup was made without the secret key: set CLARION_SECRET_KEY to the key of the instance it came from',
            'secret_key_required',
          );
        }
        if (backupKey && configuredKey && !backupKey.equals(configuredKey)) {
          throw new CliError(
            "CLARION_SECRET_KEY differs from the secret key in this backup: unset it, or set it to the backed-up instance's key",
            'secret_key_mismatch',
          );
        }
        const undo = await restoreSqliteBackup({
          file,
          dataDir: config.dataDir,
          writeKey: configuredKey ? null : backupKey,
        });
        await checkKeyOpensData(config, (configuredKey ?? backupKey)!, undo);
        printResult(
          options,
          {
            dataDir: config.dataDir,
            backupCreatedAt: backup.createdAt,
            secretKeyFrom: configuredKey ? 'CLARION_SECRET_KEY' : 'backup',
          },
          [
            `Restored the backup of ${backup.createdAt} into ${config.dataDir}${configuredKey ? ' (secret key: CLARION_SECRET_KEY)' : ', with its secret key'}.`,
            'Start the server with `clarion serve`.',
          ],
        );
      } catch (error) {
        if (error instanceof BackupError) throw new CliError(error.message, 'restore_failed');
        throw error;
      }
    });
}

/**
 * The key must open the stored VAPID private key (the one sealed secret every instance has after its first start).
 * The database is migrated first, as `clarion serve` would: a backup from an older version may predate that table.
 */
async function checkKeyOpensData(
  config: ReturnType<typeof loadConfig>,
  secretKey: Buffer,
  undo: () => void,
): Promise<void> {
  const store = openStore({ dataDir: config.dataDir });
  let opens = true;
  try {
    await migrateToLatest(store);
    await resolveVapidKeys(
      store.db,
      secretKey,
      { ...config, vapidPublicKey: undefined, vapidPrivateKey: undefined },
      Date.now(),
    );
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    opens = false;
  } finally {
    await store.close();
  }
  if (!opens) {
    undo();
    throw new CliError(
      'the secret key does not open the secrets stored in this backup: it belongs to another instance; nothing was restored',
      'secret_key_mismatch',
    );
  }
}
