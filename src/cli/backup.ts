import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config/load-config.ts';
import { resolveSecretKey } from '../config/secret-key.ts';
import { BackupError, writeSqliteBackup } from '../store/sqlite/sqlite-backup.ts';
import { CliError, countOf, printResult } from './cli-output.ts';

/** Said when the instance runs on PostgreSQL, whose own tools back it up (docs/deploy.md, "Backups"). */
export const POSTGRES_BACKUP_HINT =
  'this instance stores its data in PostgreSQL (CLARION_DATABASE_URL): back it up with pg_dump and restore with pg_restore, and keep CLARION_SECRET_KEY with it (docs/deploy.md, "Backups")';

/**
 * `clarion backup --to FILE`: a consistent copy of the SQLite database, taken while the server runs, carrying the
 * secret key from the data directory unless --without-secret-key (src/store/sqlite/sqlite-backup.ts says why).
 */
export function addBackup(program: Command): void {
  program
    .command('backup')
    .description('copy the SQLite database (and the secret key) into one file, while the server runs')
    .requiredOption('--to <file>', 'the backup file to write (must not exist)')
    .option('--without-secret-key', 'leave the secret key out: restoring then needs CLARION_SECRET_KEY')
    .option('--json', 'print one JSON object')
    .action(async (options: { to: string; withoutSecretKey?: boolean; json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) throw new CliError(POSTGRES_BACKUP_HINT, 'postgres_backup');
      const file = resolve(options.to);
      // A key from CLARION_SECRET_KEY is the operator's to keep; it is never copied into a file.
      const carriesKey = !options.withoutSecretKey && !config.secretKey;
      const secretKey = carriesKey ? resolveSecretKey(undefined, config.dataDir) : null;
      try {
        const { pages } = await writeSqliteBackup({ dataDir: config.dataDir, file, secretKey, now: new Date() });
        const keyNote = carriesKey
          ? 'It holds the secret key: keep it as safe as the key itself.'
          : `It does not hold the secret key: keep ${config.secretKey ? 'CLARION_SECRET_KEY' : "the data directory's secret.key"} with it, restore needs it.`;
        printResult(options, { file, pages, secretKeyIncluded: carriesKey }, [
          `Backed up ${config.dataDir} to ${file} (${countOf(pages, 'page')}).`,
          keyNote,
        ]);
      } catch (error) {
        if (error instanceof BackupError) throw new CliError(error.message, 'backup_failed');
        throw error;
      }
    });
}
