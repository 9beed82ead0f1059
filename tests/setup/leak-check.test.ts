import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { countResources, describeLeaks, leakedResources } from './resource-leaks.ts';

describe('leaked resources', () => {
  it('are the kinds there are more of after a file than before it', () => {
    const before = countResources(['PipeWrap', 'PipeWrap', 'TCPServerWrap']);
    const after = countResources(['PipeWrap', 'PipeWrap', 'TCPServerWrap', 'TCPServerWrap', 'ProcessWrap']);
    expect(leakedResources(before, after)).toEqual(
      new Map([
        ['TCPServerWrap', 1],
        ['ProcessWrap', 1],
      ]),
    );
  });

  it('leave out what a file closed that an earlier one had left', () => {
    expect(
      leakedResources(countResources(['TCPSocketWrap', 'TCPSocketWrap']), countResources(['TCPSocketWrap'])),
    ).toEqual(new Map());
  });

  it('are named with what usually opens them', () => {
    expect(
      describeLeaks(
        new Map([
          ['Timeout', 3],
          ['SomethingNew', 1],
        ]),
      ),
    ).toBe(
      '1 × SomethingNew\n3 × Timeout: a timer (setInterval/setTimeout not cleared: a worker pool, relay loop or retry timer not stopped)',
    );
  });
});

describe('the leak check (tests/setup/leak-check.ts) in a vitest run of its own', () => {
  it(
    'fails the files that leave a server, a timer or a test database open, naming them, and passes the file that closes late',
    { timeout: 60_000 },
    () => {
      const root = fileURLToPath(new URL('../..', import.meta.url));
      // The leaked SQLite file lands in a temporary directory of this test's own, removed below.
      const scratch = mkdtempSync(join(tmpdir(), 'clarion-leak-check-'));
      try {
        const report = join(scratch, 'report.json');
        const run = spawnSync(
          process.execPath,
          [
            'node_modules/vitest/vitest.mjs',
            'run',
            '--config',
            'tests/setup/fixtures/vitest.config.ts',
            '--reporter=json',
            `--outputFile.json=${report}`,
          ],
          {
            cwd: root,
            env: { ...process.env, TMPDIR: scratch, CLARION_TEST_DIALECT: 'sqlite' },
            encoding: 'utf8',
            timeout: 50_000,
          },
        );
        expect(run.status, run.stderr).toBe(1);
        const files = JSON.parse(readFileSync(report, 'utf8')).testResults as Array<{
          name: string;
          status: string;
          message: string;
        }>;
        const outcome = Object.fromEntries(
          files.map((file) => [
            file.name.slice(file.name.lastIndexOf('/') + 1),
            { status: file.status, message: file.message },
          ]),
        );
        expect(outcome['closes-late.fixture.ts']).toEqual({ status: 'passed', message: '' });
        expect(outcome['leaks-server.fixture.ts']).toEqual({
          status: 'failed',
          message: expect.stringMatching(/left open.*\n1 × TCPServerWrap: a listening server/),
        });
        const both = outcome['leaks-timer-and-database.fixture.ts']!;
        expect(both.status).toBe('failed');
        expect(both.message).toMatch(/1 × TestDatabase: a test database/);
        expect(both.message).toMatch(/1 × Timeout: a timer/);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );
});
