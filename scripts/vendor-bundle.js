// The build's last step (scripts/build.js): the packages an idle `clarion serve` loads as hundreds of small ES modules
// (typebox 683 files, kysely 262, and @fastify/type-provider-typebox, which imports typebox itself) bundled into one
// file, dist/vendor/bundle.js, with esbuild (installed with tsx). Node's cost is per module, not per line: the
// bundle loads in a tenth of the CPU and a fifth of the memory (docs/performance.md, "Start-up and idle memory").
// Each package gets a small module in dist/vendor/ that re-exports its names from the bundle, and dist's own
// imports of the package are pointed at it; one bundle for all of them, so they share one copy of typebox, as they
// do installed. The sources (tsx, the tests) keep importing the packages as installed.
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Package → the name of its namespace in the bundle and of its module in dist/vendor/. */
const BUNDLED = {
  typebox: 'typebox',
  'typebox/compile': 'typebox-compile',
  kysely: 'kysely',
  '@fastify/type-provider-typebox': 'type-provider-typebox',
};

const identifier = (name) => name.replace(/-(\w)/g, (_, letter) => letter.toUpperCase());

/** Bundles the packages into `dist`/vendor and points dist's imports at them. Returns false when esbuild is missing. */
export async function bundleVendors(root, dist) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false;
  }
  const vendor = join(dist, 'vendor');
  mkdirSync(vendor, { recursive: true });
  const entry = Object.entries(BUNDLED)
    .map(([specifier, name]) => `export * as ${identifier(name)} from '${specifier}';`)
    .join('\n');
  await esbuild.build({
    stdin: { contents: entry, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: join(vendor, 'bundle.js'),
    logLevel: 'warning',
  });
  for (const [specifier, name] of Object.entries(BUNDLED)) {
    const installed = await import(specifier);
    const names = Object.keys(installed).filter((key) => key !== 'default');
    const lines = [`import { ${identifier(name)} as bundled } from './bundle.js';`];
    if ('default' in installed) lines.push('export default bundled.default;');
    if (names.length > 0) lines.push(`export const { ${names.join(', ')} } = bundled;`);
    writeFileSync(join(vendor, `${name}.js`), `${lines.join('\n')}\n`);
  }
  const specifiers = Object.keys(BUNDLED)
    .map((specifier) => specifier.replace(/[/@.-]/g, '\\$&'))
    .join('|');
  const importOf = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*)(['"])(${specifiers})\\2`, 'g');
  for (const file of javascriptFiles(dist)) {
    if (file.startsWith(vendor)) continue;
    const text = readFileSync(file, 'utf8');
    const pointed = text.replace(importOf, (_, keyword, quote, specifier) => {
      let path = relative(dirname(file), join(vendor, `${BUNDLED[specifier]}.js`));
      if (!path.startsWith('.')) path = `./${path}`;
      return `${keyword}${quote}${path}${quote}`;
    });
    if (pointed !== text) writeFileSync(file, pointed);
  }
  return true;
}

function javascriptFiles(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}
