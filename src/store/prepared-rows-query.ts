import { CompiledQuery, type Compilable, type DialectAdapter, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

const SENTINEL_PREFIX = '\u0000clarion-row:';

interface Compiled {
  sql: string;
  /** Per position of the compiled statement: which row's field it takes, or a constant of the statement. */
  slots: Array<{ row: number; field: string } | { constant: unknown }>;
}

/**
 * A statement over many rows at once (a multi-row INSERT, an `IN (…)` of many keys), built with Kysely's query builder
 * ONCE per dialect and number of rows, then run with each batch's values. `preparedQuery` (src/store/prepared-query.ts)
 * does the same for statements of named values; a batch's values come by row, thousands at a time, so here `build`
 * gets stand-in rows whose every field is a placeholder, and a run fills the compiled statement's parameters straight
 * from the batch's rows by (row, field).
 *
 * Measured on `clarion subscribers import` (docs/performance.md, "Subscriber import"): building and compiling its
 * 1,000-row INSERT (18,000 values) with Kysely on every chunk was ~10% of the import's CPU, more than filling the
 * parameters of the already-compiled text. The text is then the same string every time, which the SQLite connection's
 * prepared-statement cache (src/store/database.ts) and PostgreSQL both reuse.
 *
 * Every value that changes between runs must come from a row's field, and every row must have the same fields (a
 * field's value may be null, never undefined): the statement compiled for a number of rows is the first batch's shape.
 * Any other bound value is kept as it was at the first build. On a Kysely instance with plugins (none in production)
 * the statement is built with the real rows on every run, so that the plugins see it.
 */
export function preparedRowsQuery<Row extends object, R>(
  build: (db: Kysely<Database>, rows: readonly Row[]) => Compilable<R>,
): (db: Kysely<Database>, rows: readonly Row[]) => Promise<R[]> {
  const compiledByDialect = new WeakMap<DialectAdapter, Map<number, Compiled>>();
  return async (db, rows) => {
    const executor = db.getExecutor();
    if (executor.plugins.length > 0) return (await db.executeQuery(build(db, rows))).rows;
    let byCount = compiledByDialect.get(executor.adapter);
    if (!byCount) compiledByDialect.set(executor.adapter, (byCount = new Map()));
    let compiled = byCount.get(rows.length);
    if (!compiled) byCount.set(rows.length, (compiled = compile(build(db, placeholderRows<Row>(rows)))));
    const parameters = compiled.slots.map((slot) =>
      'row' in slot ? (rows[slot.row] as Record<string, unknown>)[slot.field] : slot.constant,
    );
    return (await db.executeQuery(CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<R>)).rows;
  };
}

/** Rows shaped like the batch's (the same fields), each field a placeholder naming its row and field. */
function placeholderRows<Row extends object>(rows: readonly Row[]): Row[] {
  return rows.map(
    (row, index) =>
      Object.fromEntries(Object.keys(row).map((field) => [field, `${SENTINEL_PREFIX}${index}:${field}`])) as Row,
  );
}

function compile(query: Compilable<unknown>): Compiled {
  const { sql, parameters } = query.compile();
  const slots = parameters.map((parameter) => {
    if (typeof parameter !== 'string' || !parameter.startsWith(SENTINEL_PREFIX)) return { constant: parameter };
    const name = parameter.slice(SENTINEL_PREFIX.length);
    const colon = name.indexOf(':');
    return { row: Number(name.slice(0, colon)), field: name.slice(colon + 1) };
  });
  return { sql, slots };
}
