import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../harness/cli-process.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** `clarion --version`, and that the program's own options leave the commands' alone. No database is opened. */
describe('clarion --version', () => {
  it('prints the package version, alone or as one JSON object', () => {
    for (const flag of ['--version', '-V']) {
      const result = runCli([flag], {});
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
    for (const args of [
      ['--version', '--json'],
      ['--json', '--version'],
    ]) {
      const result = runCli(args, {});
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${JSON.stringify({ version })}\n`);
    }
  }, 60_000);

  it('still shows the help without a command, and refuses an unknown one', () => {
    const bare = runCli([], {});
    expect(bare.status).toBe(1);
    expect(bare.stderr).toContain('Usage: clarion');
    expect(bare.stderr).toContain('-V, --version');
    const unknown = runCli(['nonsense'], {});
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("unknown command 'nonsense'");
  }, 60_000);
});
