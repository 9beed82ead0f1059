import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationFiles, migrationFolder, migrationStatements } from '../../src/store/migrate.ts';

/**
 * Migrations live in src/store/migrations/shared/ (one file for both databases) or in both dialect folders under one
 * name (src/store/migrate.ts): otherwise one database would end up with a schema the other lacks.
 */
describe('migration folders', () => {
  const sqlite = migrationFiles('sqlite').map((file) => file.name);
  const postgres = migrationFiles('postgres').map((file) => file.name);
  const shared = migrationFolder('shared').map((file) => file.name);

  it('give both databases the same migration names, in the same order', () => {
    expect(sqlite.length).toBeGreaterThan(0);
    expect(postgres).toEqual(sqlite);
  });

  it('hold a name once: in shared/, or in both dialect folders', () => {
    const own = migrationFolder('sqlite').map((file) => file.name);
    expect(own.filter((name) => shared.includes(name))).toEqual([]);
    expect(migrationFolder('postgres').map((file) => file.name)).toEqual(own);
  });

  it('hold nothing else: every file is a migration the runner picks up', () => {
    for (const folder of ['sqlite', 'postgres', 'shared'] as const) {
      const files = readdirSync(new URL(`../../src/store/migrations/${folder}/`, import.meta.url));
      expect(files.map((file) => file.replace(/\.ts$/, ''))).toEqual(migrationFolder(folder).map((file) => file.name));
    }
  });

  it('are named NNNN-name and sort by their number', () => {
    for (const name of sqlite) expect(name).toMatch(/^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*$/);
    expect([...sqlite].sort()).toEqual(sqlite);
  });

  it("render a shared step with each database's types: BIGINT timestamps and plain tables on PostgreSQL", async () => {
    const dashboard = migrationFolder('shared').find((file) => file.name === '0005-dashboard')!;
    const [onSqlite, onPostgres] = await Promise.all([
      migrationStatements(dashboard.url, 'sqlite'),
      migrationStatements(dashboard.url, 'postgres'),
    ]);
    expect(onSqlite[0]).toContain('created_at INTEGER NOT NULL');
    expect(onSqlite[0]).toMatch(/\) STRICT$/);
    expect(onPostgres[0]).toContain('created_at BIGINT NOT NULL');
    expect(onPostgres[0]).toMatch(/\)$/);
  });
});
