import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresAdminUrl } from './test-dialect.ts';

/**
 * A PostgreSQL database of a test file's own, for tests that run a worker whose clock they move: on the run's shared
 * database, workers of other test files (with other clocks) would claim this file's jobs and relay its events, and
 * this file's worker theirs. Created empty (the caller migrates it) and dropped by the returned function.
 */
export async function createIsolatedDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `clarion_test_${randomBytes(4).toString('hex')}_own`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: postgresAdminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
