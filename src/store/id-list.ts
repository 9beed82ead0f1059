import { PostgresAdapter, sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from './schema.ts';
import type { Param } from './prepared-query.ts';

/**
 * `column IN (ids)` with the whole list as ONE bound parameter, for the send batch's statements (up to 500 ids):
 * `= any($1::text[])` on PostgreSQL, `IN (SELECT value FROM json_each(?))` on SQLite. The statement text is then the
 * same for every batch, so it is built and compiled once (prepared-query.ts) and prepared once by each connection,
 * instead of Kysely building, and the driver binding, 500 parameters per statement: ~100 µs of Kysely per statement
 * and batch measured for `where('id', 'in', ids)` with 500 ids (docs/performance.md, "Database work per push").
 */
export function inIdList(db: Kysely<Database>, column: string, param: Param): RawBuilder<SqlBool> {
  return isPostgres(db)
    ? sql<SqlBool>`${sql.ref(column)} = any(${param<string[]>('idArray')}::text[])`
    : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${param<string>('idJson')}))`;
}

// A type, not an interface: preparedQuery's values are a Record<string, unknown>.
export type IdListValues = { idArray?: readonly string[]; idJson?: string };

/** The parameter values `inIdList` names: the dialect's statement uses one of them. */
export function idListValues(db: Kysely<Database>, ids: readonly string[]): IdListValues {
  return isPostgres(db) ? { idArray: ids } : { idJson: JSON.stringify(ids) };
}

function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
