import { readdirSync } from 'node:fs';
import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Dialect, Store } from './database.ts';

/**
 * Migrations are plain SQL, in files named NNNN-name.ts: in src/store/migrations/shared/ for a step both databases
 * take alike, written once against the small type map below, or one in each of src/store/migrations/<dialect>/ for a
 * step whose SQL truly differs. Each exports `statements`: a list of SQL strings, or a function of the type map that
 * returns one. They are found by reading the folders (tests/store/migration-folders.test.ts keeps every name in
 * shared/ or in both dialect folders). The names only order them: a gap in the numbers (there is no 0015) means
 * nothing. Kysely's Migrator records what ran and holds a lock, so several processes starting at once against one
 * PostgreSQL database apply each migration exactly once.
 */
const MIGRATION_FILE = /^(\d{4}-[a-z0-9-]+)\.(?:ts|js)$/;

/** Where the databases' column types differ in a step written once. */
export interface SqlTypes {
  /** Epoch milliseconds (src/store/schema.ts): SQLite's INTEGER is 64-bit, PostgreSQL needs BIGINT. */
  timestamp: 'INTEGER' | 'BIGINT';
  /** Appended to CREATE TABLE: SQLite's STRICT tables refuse a value of the wrong type, as PostgreSQL always does. */
  strict: ' STRICT' | '';
  /** A double: SQLite's REAL is 8 bytes, PostgreSQL's REAL only 4 (0.7 would read back as 0.699999988). */
  real: 'REAL' | 'DOUBLE PRECISION';
}

const sqlTypes: Record<Dialect, SqlTypes> = {
  sqlite: { timestamp: 'INTEGER', strict: ' STRICT', real: 'REAL' },
  postgres: { timestamp: 'BIGINT', strict: '', real: 'DOUBLE PRECISION' },
};

/** The migration files of one folder, in order, with their names (.ts from src/, .js from dist/). */
export function migrationFolder(folder: Dialect | 'shared'): Array<{ name: string; url: URL }> {
  const url = new URL(`./migrations/${folder}/`, import.meta.url);
  return readdirSync(url)
    .flatMap((file) => {
      const match = MIGRATION_FILE.exec(file);
      return match ? [{ name: match[1]!, url: new URL(file, url) }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A dialect's migrations, in order: its own folder's and the shared ones. */
export function migrationFiles(dialect: Dialect): Array<{ name: string; url: URL }> {
  return [...migrationFolder(dialect), ...migrationFolder('shared')].sort((a, b) => a.name.localeCompare(b.name));
}

/** The SQL of one migration on `dialect`. */
export async function migrationStatements(url: URL, dialect: Dialect): Promise<string[]> {
  const { statements } = (await import(url.href)) as { statements: string[] | ((types: SqlTypes) => string[]) };
  return typeof statements === 'function' ? statements(sqlTypes[dialect]) : statements;
}

class SqlMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const entries = await Promise.all(
      migrationFiles(this.dialect).map(async ({ name, url }) => {
        const statements = await migrationStatements(url, this.dialect);
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
