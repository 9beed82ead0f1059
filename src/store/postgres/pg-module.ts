import { createRequire } from 'node:module';
import type PgModule from 'pg';

const require = createRequire(import.meta.url);
let loaded: typeof PgModule | undefined;

/**
 * node-postgres, loaded on the first PostgreSQL pool or connection rather than at import: a process on SQLite never
 * loads it (about 40 modules). Synchronous (pg is CommonJS), so opening a store stays synchronous.
 */
export function pgModule(): typeof PgModule {
  if (!loaded) {
    loaded = require('pg') as typeof PgModule;
    // BIGINT (int8) columns hold millisecond timestamps and counts, all far below 2^53: read them as numbers, not
    // strings.
    loaded.types.setTypeParser(loaded.types.builtins.INT8, (value) => Number.parseInt(value, 10));
  }
  return loaded;
}
