import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE, unsupportedNodeMessage } from '../../bin/node-version.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('the Node.js version check', () => {
  it.each([
    ['20.18.3', false],
    ['18.20.8', false],
    ['20.19.0', true],
    ['20.20.2', true],
    ['22.23.3', true],
    ['24.21.0', true],
    ['26.12.1', true],
  ])('Node %s supported: %s', (version, supported) => {
    const message = unsupportedNodeMessage(version);
    if (supported) expect(message).toBeNull();
    else
      expect(message).toMatch(
        new RegExp(`^clarion: Node\\.js ${version.replaceAll('.', '\\.')} is not supported; install Node\\.js 24 LTS`),
      );
  });

  it('agrees with package.json engines', () => {
    const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node;
    expect(engines).toBe(`>=${MINIMUM_NODE.replace(/\.0$/, '')}`);
  });

  it('stops `clarion` on an older Node with that one line and exit 1, before loading anything else', async () => {
    // The process believes it runs Node 20.18.0: the check reads process.versions.node, nothing else.
    const pretend = `data:text/javascript,Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.18.0' } });`;
    const failure = await run(process.execPath, ['--import', pretend, join(ROOT, 'bin/clarion.js'), '--help'], {
      cwd: ROOT,
      timeout: 30_000,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in failure && failure.code).toBe(1);
    expect(failure.stdout).toBe('');
    expect(failure.stderr.trim().split('\n')).toEqual([unsupportedNodeMessage('20.18.0')]);
  });
});
