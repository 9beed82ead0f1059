import { CompiledQuery, type Compilable, type DialectAdapter, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Stands for a named parameter while a prepared query is built; see `preparedQuery`. */
export type Param = <T>(name: string) => T;

const SENTINEL_PREFIX = '\u0000clarion-param:';

/** The SQL text of every statement compiled here, and the name PostgreSQL knows it by (see `serverStatementName`). */
const serverStatementNames = new Map<string, string>();

/**
 * The name under which a PostgreSQL connection keeps this statement parsed and planned, if it is one of the hot
 * statements compiled by `preparedQuery`; undefined for every other statement. src/store/database.ts sends these as
 * node-postgres named statements (`{ name, text, values }`): each connection parses the text once and then only binds
 * new values to it. Measured with pgbench on the accept path's statements (docs/performance.md, "Accept path"): PostgreSQL's CPU per accepted notification roughly halved, parse and plan being most of
 * it. A name stands for one text in this process, so two texts never meet under one name on a connection; the
 * names are as many as the statements compiled here (tens).
 */
export function serverStatementName(sql: string): string | undefined {
  return serverStatementNames.get(sql);
}

interface Compiled {
  sql: string;
  /** Per position of the compiled statement: a parameter's name, or a constant of the statement. */
  slots: Array<{ name: string } | { constant: unknown }>;
}

/**
 * A statement of a hot path, built with Kysely's query builder ONCE per dialect and then run with new parameter values.
 *
 * Building and compiling a statement is most of Kysely's cost: measured on the accept path (docs/performance.md,
 * "Accept path"), ~29 µs of CPU for the notification INSERT against ~4 µs for running the same text, and Kysely was
 * the largest item of a CPU profile of POST /api/v1/notifications. So `build` runs on the first call for each
 * dialect (and `shape`, see below) with every value replaced by `param('name')` — a placeholder that Kysely turns
 * into a bound parameter like any other value — and each later call only fills the compiled statement's parameter
 * array from `values` by name. The statement text is then the same string every time, which the SQLite connection's
 * prepared-statement cache (src/store/database.ts) and PostgreSQL both reuse. The query is still Kysely's, typed
 * against the schema, and runs through the same executor (transactions) as every other statement; on a Kysely
 * instance with plugins (none in production) it is built anew on every call, so that the plugins see it.
 *
 * Every value that changes between calls must be a `param`; any other bound value (a constant such as
 * `status = 'active'`) is kept as it was at the first build, so `build` must not read `values` for anything but the
 * statement's shape. `shape` is for statements whose text depends on their input beyond the values (e.g. which
 * columns an INSERT names): one compiled statement per distinct shape.
 */
export function preparedQuery<V extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, param: Param, values: V) => Compilable<R>,
  shape: (values: V) => string = () => '',
): (db: Kysely<Database>, values: V) => Promise<R[]> {
  const compiledByDialect = new WeakMap<DialectAdapter, Map<string, Compiled>>();
  return async (db, values) => {
    const executor = db.getExecutor();
    if (executor.plugins.length > 0) {
      // A plugin transforms each statement as it is built (the tests' fault injection does): build this one, with
      // its values, as any other Kysely statement.
      const result = await db.executeQuery(build(db, (name) => values[name] as never, values));
      return result.rows;
    }
    const adapter = executor.adapter;
    let byShape = compiledByDialect.get(adapter);
    if (!byShape) compiledByDialect.set(adapter, (byShape = new Map()));
    const key = shape(values);
    let compiled = byShape.get(key);
    if (!compiled) byShape.set(key, (compiled = compile(build(db, placeholder, values))));
    const parameters = compiled.slots.map((slot) => {
      if (!('name' in slot)) return slot.constant;
      if (!(slot.name in values)) throw new Error(`prepared query: no value for parameter "${slot.name}"`);
      return values[slot.name];
    });
    const result = await db.executeQuery(CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<R>);
    return result.rows;
  };
}

function placeholder<T>(name: string): T {
  return `${SENTINEL_PREFIX}${name}` as T;
}

function compile(query: Compilable<unknown>): Compiled {
  const { sql, parameters } = query.compile();
  if (!serverStatementNames.has(sql)) serverStatementNames.set(sql, `clarion_${serverStatementNames.size + 1}`);
  const slots = parameters.map((parameter) =>
    typeof parameter === 'string' && parameter.startsWith(SENTINEL_PREFIX)
      ? { name: parameter.slice(SENTINEL_PREFIX.length) }
      : { constant: parameter },
  );
  return { sql, slots };
}
