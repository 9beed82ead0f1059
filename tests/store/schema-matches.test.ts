import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/** table → column → nullable */
type Shape = Record<string, Record<string, boolean>>;

/**
 * The tables and columns src/store/schema.ts declares, read with the TypeScript compiler so schema.ts stays the one
 * description: the `Database` interface names each table's row interface, and a column is nullable when its type is
 * a union with `null`.
 */
function declaredShape(): Shape {
  const path = new URL('../../src/store/schema.ts', import.meta.url);
  const source = ts.createSourceFile('schema.ts', readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
  });
  const propertiesOf = (name: string) => {
    const declaration = interfaces.get(name);
    if (!declaration) throw new Error(`schema.ts has no interface ${name}`);
    return declaration.members.filter(ts.isPropertySignature);
  };
  const shape: Shape = {};
  for (const table of propertiesOf('Database')) {
    const rowType = table.type;
    if (!rowType || !ts.isTypeReferenceNode(rowType))
      throw new Error(`Database.${table.name.getText(source)} is not a row interface`);
    shape[table.name.getText(source)] = Object.fromEntries(
      propertiesOf(rowType.typeName.getText(source)).map((column) => {
        const type = column.type!;
        const nullable =
          ts.isUnionTypeNode(type) &&
          type.types.some((part) => ts.isLiteralTypeNode(part) && part.literal.kind === ts.SyntaxKind.NullKeyword);
        return [column.name.getText(source), nullable];
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
