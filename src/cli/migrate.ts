import type { Command } from 'commander';
import { describeStore } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

export function addMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (serve also does this at start)')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const result = await withStore(
        async (store, config) => ({
          ...describeStore(store, config),
          applied: (await migrateToLatest(store)).applied,
        }),
        { migrate: false },
      );
      printResult(options, result, [
        result.applied.length === 0
          ? `${result.dialect} database at ${result.database} is up to date.`
          : `Applied ${result.applied.join(', ')} to the ${result.dialect} database at ${result.database}.`,
      ]);
    });
}
