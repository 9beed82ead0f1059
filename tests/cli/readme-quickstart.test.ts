import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLARION_BIN, startServeProcess } from '../harness/cli-process.ts';
import { runCapturing, type ShellResult } from '../harness/doc-shell.ts';

/**
 * The README's five-minute quickstart, run as written against `clarion serve` started the way `npm start` starts it
 * (no CLARION_HOST, a new data directory, SQLite). Only two things are changed in its commands: the server's address
 * (it listens on a free port here instead of 3000) and `npx clarion`, which becomes this checkout's bin/clarion.js.
 */
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const quickstart = README.split(/^## Five-minute quickstart\s*$/m)[1]?.split(/^## /m)[0] ?? '';
/** The block that creates an account and keys, registers a device and sends: the one with the curl commands. */
const script = [...quickstart.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
  .map((match) => match[1]!)
  .find((block) => block.includes('curl'));

const dataDir = mkdtempSync(join(tmpdir(), 'clarion-quickstart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs a shell script with bash, stopping at the first failing command; resolves with its output. */
function bash(text: string, env: Record<string, string | undefined>): Promise<ShellResult> {
  return runCapturing('bash', ['-eu', '-o', 'pipefail', '-c', text], env);
}

describe("the README's quickstart", () => {
  it('runs as written: the device registered for alice is reached by the channel send and by the send to her alone', async () => {
    expect(script, 'a sh block with the curl commands under "Five-minute quickstart"').toBeDefined();
    const server = await startServeProcess({
      CLARION_DATA_DIR: dataDir,
      CLARION_DATABASE_URL: undefined,
      CLARION_HOST: undefined,
      CLARION_SIGNUP: undefined,
      CLARION_CONFIG_FILE: undefined,
    });
    try {
      // A new instance: listening on loopback only, as the README says.
      expect(server.output()).toContain('listening on 127.0.0.1 only');
      const runnable = script!
        .replaceAll('http://localhost:3000', server.baseUrl)
        .replaceAll('npx clarion', `node ${CLARION_BIN}`);
      // curl prints each body without a newline: one per line, so every answer can be read on its own.
      const result = await bash(`curl() { command curl "$@"; echo; }\n${runnable}`, {
        CLARION_DATA_DIR: dataDir,
        CLARION_DATABASE_URL: undefined,
        CLARION_CONFIG_FILE: undefined,
      });
      expect(result.status, result.stderr).toBe(0);
      const answers = result.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { success?: boolean; data?: any });
      const [registered, sentToChannel, listed, sentToAlice, usage] = answers;
      expect(
        answers.every((answer) => answer.success === true),
        result.stdout,
      ).toBe(true);
      expect(registered!.data).toMatchObject({
        id: expect.stringMatching(/^sub_/),
        channelCode: 'news',
        status: 'active',
      });
      expect(sentToChannel!.data).toMatchObject({ recipientCount: 1, status: 'queued' });
      expect(listed!.data.map((subscriber: { externalId: string | null }) => subscriber.externalId)).toEqual(['alice']);
      expect(sentToAlice!.data).toMatchObject({ recipientCount: 1 });
      expect(usage!.data).toMatchObject({ plan: 'free', used: 2, limit: 250 });

      // The account's owner, given with `accounts add-owner`, signs in to the dashboard.
      const owner = /accounts add-owner --account "\$ACCOUNT" --email (\S+) --password '([^']+)'/.exec(script!);
      expect(owner, 'the quickstart gives its account a dashboard owner').not.toBeNull();
      const signin = await fetch(`${server.baseUrl}/api/v1/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: owner![1], password: owner![2] }),
      });
      expect(signin.status).toBe(200);
      expect(
        ((await signin.json()) as { data: { session: { account: { name: string } } } }).data.session.account.name,
      ).toBe('Acme');
    } finally {
      await server.stop();
    }
  }, 120_000);
});
