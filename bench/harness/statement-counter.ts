import { SqliteDatabase } from '../../src/store/sqlite/sqlite-driver.ts';
import pg from 'pg';

/**
 * Counts every SQL statement this process sends to either database, BEGIN and COMMIT included, by wrapping the
 * drivers themselves (each run of a better-sqlite3 statement; each pg Client.query), so
 * nothing Kysely does around its own `log` hook escapes the count. `statements` holds the SQL texts in order.
 */
export function countStatements(): { count(): number; statements: string[]; reset(): void } {
  const statements: string[] = [];
  // Statements are prepared once and run many times (src/store/sqlite/sqlite-store.ts keeps them): count the runs.
  const probe = new SqliteDatabase(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statementPrototype[method]!;
    statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
      statements.push(this.source);
      return original.apply(this, args);
    };
  }
  const clientPrototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
  const query = clientPrototype.query;
  clientPrototype.query = function (this: unknown, ...args: unknown[]) {
    const text = args[0];
    statements.push(typeof text === 'string' ? text : String((text as { text?: string }).text));
    return query.apply(this, args);
  };
  return { count: () => statements.length, statements, reset: () => (statements.length = 0) };
}
