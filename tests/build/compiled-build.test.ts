import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The compiled build in a copy of the repository, so building and touching sources here never
// changes what the rest of the suite runs: `npm run build` writes dist/, `clarion serve` then runs it (the dashboard,
// the web SDK and the migrations still found from dist/, the worker thread compiled too), and a source newer than the
// build sends the command back to the sources through tsx instead of running stale code.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let copy: string;

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'clarion-build-'));
  for (const path of [
    'src',
    'bin',
    'web',
    'web-sdk',
    'scripts',
    'packages/client',
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
  ]) {
    cpSync(join(repoRoot, path), join(copy, path), { recursive: true });
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'));
  const build = spawnSync(process.execPath, [join(copy, 'scripts/build.js')], {
    cwd: copy,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(build.status, build.stderr).toBe(0);
  // The client package too: a compiled `clarion send` / `clarion live` loads it from there (src/cli/client-package.ts).
  expect(existsSync(join(copy, 'packages/client/dist/index.js'))).toBe(true);
}, 150_000);

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

/** `clarion serve` from the copy, on a fresh data directory; resolves with its base URL and log once it listens. */
async function serveFromCopy(
  env: Record<string, string | undefined> = {},
): Promise<{ child: ChildProcess; baseUrl: string; output: () => string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-build-data-'));
  const child = spawn(process.execPath, [join(copy, 'bin/clarion.js'), 'serve'], {
    cwd: copy,
    env: {
      ...process.env,
      CLARION_PORT: '0',
      CLARION_HOST: '127.0.0.1',
      CLARION_DATA_DIR: dataDir,
      CLARION_DATABASE_URL: undefined,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const check = () => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`serve exited early:\n${output}`));
    });
  });
  return { child, baseUrl, output: () => output, dataDir };
}

async function stop(server: { child: ChildProcess; dataDir: string }): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
  rmSync(server.dataDir, { recursive: true, force: true });
}

describe('the compiled build', () => {
  it('writes dist/ with its completion stamp', () => {
    expect(existsSync(join(copy, 'dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(copy, 'dist/worker-thread-entry.js'))).toBe(true);
    expect(existsSync(join(copy, 'dist/.build-complete'))).toBe(true);
  });

  it('runs the `clarion` command from its bundle, dist/bundle/main.js (scripts/server-bundle.js)', async () => {
    const { entryFile } = (await import(pathToFileURL(join(copy, 'bin/entry-point.js')).href)) as {
      entryFile: (module: string) => URL;
    };
    expect(fileURLToPath(entryFile('cli/main'))).toBe(join(copy, 'dist/bundle/main.js'));
  });

  it('runs a command of the CLI from the bundle: a chunk loaded when the command is chosen', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'clarion-build-data-'));
    try {
      const created = spawnSync(
        process.execPath,
        [
          join(copy, 'bin/clarion.js'),
          'accounts',
          'create',
          '--name',
          'Bundled',
          '--owner-email',
          'owner@example.com',
          '--owner-password',
          'a-long-password-1',
          '--json',
        ],
        { cwd: copy, encoding: 'utf8', env: { ...process.env, CLARION_DATA_DIR: dataDir, CLARION_DATABASE_URL: '' } },
      );
      expect(created.status, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ name: 'Bundled', owner: { email: 'owner@example.com' } });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('loads typebox and kysely from one bundle: no module of dist/ imports them as installed', () => {
    const installedImport = /\bfrom\s*['"](typebox|typebox\/compile|kysely|@fastify\/type-provider-typebox)['"]/;
    const files = readdirSync(join(copy, 'dist'), { recursive: true, encoding: 'utf8' }).filter(
      // dist/vendor and dist/bundle hold the packages themselves.
      (file) => file.endsWith('.js') && !file.startsWith('vendor') && !file.startsWith('bundle'),
    );
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((file) => installedImport.test(readFileSync(join(copy, 'dist', file), 'utf8')))).toEqual([]);
    expect(readFileSync(join(copy, 'dist/http/app.js'), 'utf8')).toContain('../vendor/type-provider-typebox.js');
  });

  it('serves from dist/: migrations, the dashboard, the web SDK and the worker on its thread', async () => {
    const server = await serveFromCopy({ CLARION_WORKER_THREAD: 'true' });
    try {
      expect(server.output()).toMatch(/"code":"dist"/);
      expect(server.output()).toMatch(/"applied":\["0001-core"/);
      expect(server.output()).toMatch(/"thread":true,"msg":"delivery worker started"/);
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
      const dashboard = await fetch(`${server.baseUrl}/`);
      expect(dashboard.status).toBe(200);
      expect(await dashboard.text()).toContain('<html');
      expect((await fetch(`${server.baseUrl}/sdk/clarion-web.js`)).status).toBe(200);
      // The API docs load on first use packages the bundle leaves as installed (scripts/server-bundle.js).
      const docs = await fetch(`${server.baseUrl}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('<html');
      const openapi = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
      expect(openapi.status).toBe(200);
      expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    } finally {
      await stop(server);
    }
  }, 90_000);

  it('runs the sources through tsx when a source file is newer than the build', async () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(copy, 'src/server.ts'), later, later);
    const server = await serveFromCopy();
    try {
      expect(server.output()).toMatch(/"code":"src"/);
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      await stop(server);
    }
  }, 90_000);
});
