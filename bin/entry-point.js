// Which code a `clarion` process runs: the compiled JavaScript in dist/ (scripts/build.js, run by `npm ci` through
// the `prepare` script) when it is at least as new as every file under src/, otherwise the TypeScript sources through
// tsx. Never a stale build: a checkout or an edit after the last build makes src/ newer, and the process runs what is
// in src/ (slower to start: tsx compiles each module on load) until `npm run build` runs again.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../', import.meta.url);
const BUILD_STAMP = new URL('dist/.build-complete', ROOT);
/** Entry points the build also bundles (scripts/server-bundle.js), by their file in dist/bundle/. */
const BUNDLED = { 'cli/main': 'main' };

/**
 * The newest modification time under src/ (about 250 entries: a few milliseconds). Folders count too: deleting or
 * renaming a module changes only its folder's time.
 */
function newestSourceTime() {
  const sourceDir = fileURLToPath(new URL('src/', ROOT));
  let newest = statSync(sourceDir).mtimeMs;
  for (const entry of readdirSync(sourceDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    const mtime = statSync(`${entry.parentPath}/${entry.name}`).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

/** True when dist/ holds a complete build of the current sources. */
function compiledBuildIsCurrent() {
  if (!existsSync(BUILD_STAMP)) return false;
  // No src/ at all (an image that ships only dist/): the build is all there is.
  if (!existsSync(new URL('src/', ROOT))) return true;
  return statSync(BUILD_STAMP).mtimeMs >= newestSourceTime();
}

/**
 * The file that runs `<module>` (a path under src/ without its extension, e.g. 'cli/main'): from dist/ when the build
 * is current (its bundle in dist/bundle/ when the build made one), else its source in src/. A module can tell which by
 * its own URL's extension (src/worker-thread.ts does; in the bundle each module keeps its URL in dist/).
 */
export function entryFile(module) {
  if (!compiledBuildIsCurrent()) return new URL(`src/${module}.ts`, ROOT);
  const bundled = BUNDLED[module] && new URL(`dist/bundle/${BUNDLED[module]}.js`, ROOT);
  return bundled && existsSync(bundled) ? bundled : new URL(`dist/${module}.js`, ROOT);
}

/** Imports `<module>` from its `entryFile`; a source file is compiled by tsx as it loads. */
export async function runEntryPoint(module) {
  const file = entryFile(module);
  if (file.pathname.endsWith('.ts')) {
    const { register } = await import('tsx/esm/api');
    register();
  }
  await import(file.href);
}
