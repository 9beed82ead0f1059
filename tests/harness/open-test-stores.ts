/**
 * The test stores opened and not yet closed (test-store.ts adds and removes them), for the leak check
 * (tests/setup/leak-check.ts), which fails a file that leaves one open: an SQLite connection never shows up among
 * the process's active handles. A module without imports, so the leak check, which every test file loads, does not
 * pull in the database drivers; the set lives on globalThis so every copy of this module sees the same one.
 */
const key = Symbol.for('clarion.openTestStores');

export const openTestStores: Set<unknown> = ((globalThis as typeof globalThis & { [key]?: Set<unknown> })[key] ??=
  new Set());
