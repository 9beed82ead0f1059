import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * packages/client/tsconfig.build.json compiles the package to JavaScript with declarations: for callers without a
 * TypeScript tool, and for a `clarion` run from compiled JavaScript (src/cli/client-package.ts). The output must run
 * on plain Node, with no loader. Built under .cache/ so that its `openapi-fetch` import resolves to the root's
 * node_modules, as packages/client/dist/ does.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, '.cache', `client-build-${process.pid}`);
const run = promisify(execFile);

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe('packages/client/tsconfig.build.json', () => {
  it('compiles the package into JavaScript that plain Node imports', async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', 'packages/client/tsconfig.build.json', '--outDir', OUT], {
      cwd: ROOT,
      timeout: 120_000,
    });
    expect(existsSync(join(OUT, 'index.d.ts'))).toBe(true);
    const script = `const m = await import(${JSON.stringify(join(OUT, 'index.js'))}); console.log(Object.keys(m).sort().join(','));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      timeout: 30_000,
    });
    expect(stdout.trim()).toBe(
      'ClarionApiError,ClarionConnectionError,DEFAULT_RETRY_OPTIONS,DEFAULT_TIMEOUT_MS,UNEXPECTED_RESPONSE,createClarionClient,unwrap',
    );
  });
});
