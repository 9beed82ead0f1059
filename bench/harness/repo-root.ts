import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, for the scripts the benchmarks start (bin/clarion.js, tools/run-fakes.ts, bench/*.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
