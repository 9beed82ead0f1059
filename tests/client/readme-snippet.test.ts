import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type LiveServer } from '../harness/live-server.ts';

/**
 * The README's typed-client steps, run as a user in a project of their own would run them: `npm pack` the package
 * from the clone, `npm install` the tarball, then the README's `send.mjs` with plain `node` (no tsx, no loader, no
 * path mapping), against a live `clarion serve` that delivers to the fake providers. The shell lines and the script are
 * read from README.md, so what it shows is what runs.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);

const section = README.slice(README.indexOf('with the typed client in [packages/client]'));
const installLines = /```sh\n([\s\S]*?)```/.exec(section)![1]!.trim().split('\n');
const sendScript = /```js\n([\s\S]*?)```/.exec(section)![1]!;

let live: LiveServer;
let project: string;
beforeAll(async () => {
  live = await startLiveServer();
  project = mkdtempSync(join(tmpdir(), 'clarion-readme-client-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
});
afterAll(async () => {
  await live?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** Runs one of the README's shell lines in the project, its clone path pointing at this repository. */
async function shell(line: string) {
  const command = line.replace(/\s+#.*$/, '').replaceAll('/path/to/clarion', ROOT);
  // --prefer-offline: openapi-fetch comes from npm's cache, which the repository's own `npm ci` filled.
  const words = command.split(/\s+/);
  const args =
    words[1] === 'install' ? [...words.slice(1), '--prefer-offline', '--no-audit', '--no-fund'] : words.slice(1);
  expect(words[0]).toBe('npm');
  return run('npm', args, { cwd: project, timeout: 180_000 });
}

describe('README.md, the typed client from your own code', () => {
  it('shows two npm lines and a script that imports the package by name', () => {
    expect(installLines).toHaveLength(2);
    expect(installLines[0]).toMatch(/^npm pack \/path\/to\/clarion\/packages\/client\b/);
    expect(installLines[1]).toMatch(/^npm install \.\/clarion-client-[\d.]+\.tgz$/);
    expect(sendScript).toContain("from '@clarion/client'");
  });

  it('installs from the packed tarball and sends with plain node', async () => {
    for (const line of installLines) await shell(line);
    writeFileSync(join(project, 'send.mjs'), sendScript);
    const account = await live.newAccount(['news']);
    await run(process.execPath, ['send.mjs'], {
      cwd: project,
      env: { ...process.env, CLARION_URL: live.baseUrl, CLARION_API_KEY: account.secretKey, NODE_OPTIONS: '' },
      timeout: 60_000,
    });
    const push = await live.fakes.fcm.waitForRequest(
      (request) => request.target?.value === account.androidTokens.news,
      20_000,
    );
    expect(JSON.stringify(push.message)).toContain('Sent with three lines of code');
  }, 300_000);
});
