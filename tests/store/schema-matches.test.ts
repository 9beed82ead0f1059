import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/** table → column → nullable */
type Shape = Record<string, Record<string, boolean>>;

/**
 * The tables and columns src/store/schema.ts declares, read with the TypeScript type checker so schema.ts stays the one
 * description (with what its row interfaces take from elsewhere, like a notification's content columns): the
 * `Database` interface names each table's row type, and a column is nullable when its type is a union with `null`.
 */
function declaredShape(): Shape {
  const path = new URL('../../src/store/schema.ts', import.meta.url).pathname;
  const program = ts.createProgram([path], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path)!;
  let database: ts.InterfaceDeclaration | undefined;
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'Database') database = node;
  });
  if (!database) throw new Error('schema.ts has no interface Database');
  const shape: Shape = {};
  for (const table of database.members.filter(ts.isPropertySignature)) {
    const rowType = checker.getTypeAtLocation(table.type!);
    shape[table.name.getText(source)] = Object.fromEntries(
      checker.getPropertiesOfType(rowType).map((column) => {
        const type = checker.getTypeOfSymbolAtLocation(column, table);
        const nullable = type.isUnion() && type.types.some((part) => (part.flags & ts.TypeFlags.Null) !== 0);
        return [column.name, nullable];
      }),
    );
  }
  return shape;
}

/** What the migrations built on the dialect under test (Kysely's own bookkeeping tables left out). */
async function migratedShape(testStore: TestStore): Promise<Shape> {
  const { db, dialect } = testStore.store;
  const shape: Shape = {};
  if (dialect === 'sqlite') {
    const tables = await sql<{
      name: string;
    }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'`.execute(
      db,
    );
    for (const { name } of tables.rows) {
      const columns = await sql<{
        name: string;
        notnull: number;
        pk: number;
      }>`SELECT name, "notnull", pk FROM pragma_table_info(${name})`.execute(db);
      // SQLite lets a PRIMARY KEY column that is not INTEGER hold NULL unless declared NOT NULL (a legacy quirk:
      // https://www.sqlite.org/lang_createtable.html#the_primary_key). Every insert sets its id, so a key column
      // counts as NOT NULL here, as it is on PostgreSQL.
      shape[name] = Object.fromEntries(
        columns.rows.map((column) => [column.name, column.notnull === 0 && column.pk === 0]),
      );
    }
  } else {
    const columns = await sql<{ table_name: string; column_name: string; is_nullable: 'YES' | 'NO' }>`
      SELECT table_name, column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name NOT LIKE 'kysely_%'`.execute(db);
    for (const column of columns.rows)
      (shape[column.table_name] ??= {})[column.column_name] = column.is_nullable === 'YES';
  }
  return shape;
}

/** One line per column, sorted, so a difference reads as a list of the columns that differ. */
const lines = (shape: Shape) =>
  Object.entries(shape)
    .flatMap(([table, columns]) =>
      Object.entries(columns).map(([column, nullable]) => `${table}.${column}${nullable ? ' | null' : ''}`),
    )
    .sort();

let testStore: TestStore;
beforeAll(async () => {
  // A database of its own, migrated from empty: what a new installation gets.
  testStore = await openTestStore({ isolated: true });
});
afterAll(async () => testStore.close());

describe('src/store/schema.ts against the migrated database', () => {
  it('declares exactly the tables and columns the migrations create, nullable exactly where they are', async () => {
    const declared = declaredShape();
    expect(Object.keys(declared).length).toBeGreaterThanOrEqual(20);
    const migrated = await migratedShape(testStore);
    expect(Object.keys(migrated).sort()).toEqual(Object.keys(declared).sort());
    expect(lines(migrated)).toEqual(lines(declared));
  });
});
