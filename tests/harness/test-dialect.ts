import type { Dialect } from '../../src/store/database.ts';

/** Which database this run tests: CLARION_TEST_DIALECT=sqlite (default) or postgres. */
export const testDialect: Dialect = process.env.CLARION_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';

/** Where PostgreSQL test databases are created from (a database the role may connect to). */
export const postgresAdminUrl = process.env.CLARION_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
