import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Database knowledge stays in src/store/ (docs/design.md, "Storage"): what differs between SQLite and PostgreSQL is an
 * operation or a property of the storage port (src/store/database.ts), implemented in src/store/sqlite/ and
 * src/store/postgres/, and nothing outside src/store/ branches on which database it runs on, or reaches into either
 * implementation's folder.
 */
const ROOT = resolve(import.meta.dirname, '../..');

function grep(pattern: string): string[] {
  // Tracked files only; exit 1 means no match.
  try {
    return execFileSync('git', ['grep', '-nE', pattern, '--', 'src', ':!src/store'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch (error) {
    if ((error as { status?: number }).status !== 1) throw error;
    return [];
  }
}

describe('the storage port', () => {
  it('is the only place outside src/store/ that knows which database runs', () => {
    expect(grep(String.raw`dialect (===|!==) '(sqlite|postgres)'|store\.dialect`)).toEqual([]);
  });

  it('is reached only through src/store/, never by importing a database’s own folder', () => {
    // `clarion backup` and `clarion restore` copy SQLite's file itself and answer PostgreSQL with pg_dump's name
    // (docs/deploy.md, "Backups"): they are SQLite's own commands.
    const sqliteFileCommands = /^src\/cli\/(backup|restore)\.ts:/;
    expect(
      grep(String.raw`from '[^']*store/(sqlite|postgres)/`).filter((line) => !sqliteFileCommands.test(line)),
    ).toEqual([]);
  });
});
