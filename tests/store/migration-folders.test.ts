import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationFiles } from '../../src/store/migrate.ts';

/**
 * Each database has its own migration folder (src/store/migrations/<dialect>/), read in name order by
 * src/store/migrate.ts: both must hold the same steps, or one database would end up with a schema the other lacks.
 */
describe('migration folders', () => {
  const sqlite = migrationFiles('sqlite').map((file) => file.name);
  const postgres = migrationFiles('postgres').map((file) => file.name);

  it('hold the same migration names, in the same order', () => {
    expect(sqlite.length).toBeGreaterThan(0);
    expect(postgres).toEqual(sqlite);
  });

  it('hold nothing else: every file is a migration the runner picks up', () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const files = readdirSync(new URL(`../../src/store/migrations/${dialect}/`, import.meta.url));
      expect(files.map((file) => file.replace(/\.ts$/, ''))).toEqual(migrationFiles(dialect).map((file) => file.name));
    }
  });

  it('are named NNNN-name and sort by their number', () => {
    for (const name of sqlite) expect(name).toMatch(/^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*$/);
    expect([...sqlite].sort()).toEqual(sqlite);
  });
});
