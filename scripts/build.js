#!/usr/bin/env node
// `npm run build` (and `prepare`, which `npm ci` runs): compiles src/ into dist/ with tsc (tsconfig.build.json), for
// `npm start` and the `clarion` command (bin/entry-point.js), then the client package (packages/client) into its
// dist/, which a compiled `clarion send` / `clarion live` loads (src/cli/client-package.ts); then bundles the packages
// and the command for a faster start (scripts/vendor-bundle.js, scripts/server-bundle.js). The stamp
// dist/.build-complete is written last, so a build that fails half-way is never run: the command falls back to the
// sources through tsx.
// Without TypeScript installed (`npm ci --omit=dev`) there is nothing to build with: it says so and leaves the
// sources to tsx rather than failing the install.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer } from './server-bundle.js';
import { bundleVendors } from './vendor-bundle.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.warn(
    'clarion build: TypeScript is not installed (npm ci --omit=dev?); `clarion` will run the sources through tsx',
  );
  process.exit(0);
}

// From scratch: a module deleted from src/ must not linger in dist/.
rmSync(dist, { recursive: true, force: true });
rmSync(join(root, 'packages/client/dist'), { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'packages/client/tsconfig.build.json']) {
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(
      `clarion build: tsc -p ${project} failed; \`clarion\` will run the sources through tsx until a build succeeds`,
    );
    process.exit(result.status ?? 1);
  }
}
if (!(await bundleVendors(root, dist)))
  console.warn('clarion build: esbuild is not installed; dist/ imports typebox and kysely as installed');
else await bundleServer(root, dist);
writeFileSync(join(dist, '.build-complete'), `${new Date().toISOString()}\n`);
