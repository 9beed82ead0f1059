import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Which better-sqlite3 build this Node runs, chosen once per process: every SQLite connection Clarion opens (the
 * serving one, the checkpoint thread's, backups, tests, benchmarks) comes from here.
 *
 * - Node 22 and later: better-sqlite3 13, a Node-API module with prebuilt binaries inside the package (no compiler at
 *   `npm ci`). Version 12 must not run there: its statements wrap Node's own `node::ObjectWrap`, whose destructor on
 *   Node 24 asserts that a Node environment is current, and a statement collected by the garbage collector outside one
 *   aborts the process (`Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook`; seen right after
 *   start in 8 of 10 starts; https://github.com/WiseLibs/better-sqlite3/issues/1515).
 * - Node 20: better-sqlite3 12, installed as the optional dependency `better-sqlite3-node20` (compiled at `npm ci`
 *   where no prebuilt binary can be fetched). Version 13 needs Node 22 and crashes Node 20 with a segmentation fault.
 *
 * Both expose the same API (`prepare`, `pragma`, `backup`, `exec`, `transaction`), so nothing else knows which one
 * runs. docs/deploy.md ("Node.js versions") records why this driver and not Node's built-in `node:sqlite`.
 */
export const SQLITE_DRIVER_PACKAGE = nodeMajor() >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;

const require = createRequire(import.meta.url);

/** The driver's `Database` class; `new SqliteDatabase(file, options)` opens a connection. */
export const SqliteDatabase = loadDriver();

/** The driver's resolved entry file, for a worker thread that must load the same build. */
export function sqliteDriverPath(): string {
  return require.resolve(SQLITE_DRIVER_PACKAGE);
}

function loadDriver(): typeof BetterSqlite3 {
  try {
    return require(SQLITE_DRIVER_PACKAGE) as typeof BetterSqlite3;
  } catch (error) {
    throw new Error(
      `the SQLite driver for Node ${process.versions.node} (${SQLITE_DRIVER_PACKAGE}) could not be loaded: run \`npm ci\` with this Node (${(error as Error).message})`,
    );
  }
}

function nodeMajor(): number {
  return Number(process.versions.node.split('.')[0]);
}
