import { readdirSync } from 'node:fs';
import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Dialect, Store } from './database.ts';

/**
 * Migrations are plain SQL per dialect: src/store/migrations/<dialect>/NNNN-name.ts, each exporting `statements`, found
 * by reading the folder (tests/store/migration-folders.test.ts keeps the two folders to the same names). The names
 * only order them: a gap in the numbers (there is no 0015) means nothing. Kysely's Migrator records what ran and
 * holds a lock, so several processes starting at once against one PostgreSQL database apply each migration exactly
 * once.
 */
const MIGRATION_FILE = /^(\d{4}-[a-z0-9-]+)\.(?:ts|js)$/;

/** The migration names of a dialect's folder, in order, with the file each comes from (.ts from src/, .js from dist/). */
export function migrationFiles(dialect: Dialect): Array<{ name: string; url: URL }> {
  const folder = new URL(`./migrations/${dialect}/`, import.meta.url);
  return readdirSync(folder)
    .flatMap((file) => {
      const match = MIGRATION_FILE.exec(file);
      return match ? [{ name: match[1]!, url: new URL(file, folder) }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

class SqlMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const entries = await Promise.all(
      migrationFiles(this.dialect).map(async ({ name, url }) => {
        const { statements } = (await import(url.href)) as { statements: string[] };
        const migration: Migration = {
          async up(db) {
            for (const statement of statements) await sql.raw(statement).execute(db);
          },
        };
        return [name, migration] as const;
      }),
    );
    return Object.fromEntries(entries);
  }
}

export interface MigrationOutcome {
  applied: string[];
}

/**
 * Applies every pending migration; throws with the failing migration's name and cause. `upTo` stops after the named
 * migration: a database as an earlier version left it, for tests that migrate existing data (tests/store/*-migration.test.ts).
 */
export async function migrateToLatest(store: Store, options: { upTo?: string } = {}): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db: store.db, provider: new SqlMigrationProvider(store.dialect) });
  const result: MigrationResultSet = options.upTo
    ? await migrator.migrateTo(options.upTo)
    : await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((entry) => entry.status === 'Error');
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`, { cause: result.error });
  }
  return {
    applied: (result.results ?? []).filter((entry) => entry.status === 'Success').map((entry) => entry.migrationName),
  };
}
