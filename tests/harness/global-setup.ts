import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openStore } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { postgresAdminUrl, testDialect } from './test-dialect.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
  }
}

/**
 * On PostgreSQL, the run gets a database of its own, migrated once and dropped at the end; tests share it and
 * isolate themselves with fresh accounts (docs/develop.md, convention 5). On SQLite each test file opens its own database file.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (testDialect !== 'postgres') {
    project.provide('postgresUrl', null);
    return async () => {};
  }
  const name = `clarion_test_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  const store = openStore({ databaseUrl: url.toString(), dataDir: '.' });
  await migrateToLatest(store);
  await store.close();
  project.provide('postgresUrl', url.toString());
  return async () => {
    const client = new pg.Client({ connectionString: postgresAdminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  };
}
