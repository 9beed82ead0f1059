import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type LiveServer } from '../harness/live-server.ts';

/**
 * Every example of packages/client/README.md runs, as a user would run it, against a live `clarion serve` whose
 * worker delivers to the fake providers. The README's code blocks are the files of packages/client/examples/ (which
 * `tsc --noEmit` type-checks like the rest of the project), so what the README shows is what runs here.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const PACKAGE = join(ROOT, 'packages/client');
const EXAMPLES = join(PACKAGE, 'examples');
const run = promisify(execFile);

const readmeBlocks = [...readFileSync(join(PACKAGE, 'README.md'), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```/gm)].map(
  (match) => match[1]!.trim(),
);
const exampleFiles = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith('.ts'))
  .sort();

let live: LiveServer;
beforeAll(async () => {
  live = await startLiveServer();
});
afterAll(async () => {
  await live?.close();
});

async function runExample(file: string, apiKey: string, env: Record<string, string> = {}) {
  // From the repository root, where tsconfig.json maps '@clarion/client' to the package's source for tsx.
  return run(process.execPath, ['--import', 'tsx', join(EXAMPLES, file)], {
    cwd: ROOT,
    env: { ...process.env, CLARION_URL: live.baseUrl, CLARION_API_KEY: apiKey, ...env },
    timeout: 60_000,
  });
}

/**
 * What an example needs beyond the URL and key. receipts.ts relays the receipt of a push the account's Android
 * subscriber got: a notification is sent and its receipt read from what the fake FCM received.
 */
const extraEnv: Record<string, (account: { secretKey: string; token: string }) => Promise<Record<string, string>>> = {
  'receipts.ts': async ({ secretKey, token }) => {
    const response = await fetch(`${live.baseUrl}/api/v1/notifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channelCode: 'news', title: 'Opened?' }),
    });
    expect(response.status).toBe(201);
    const push = await live.fakes.fcm.waitForRequest((request) => request.target?.value === token, 20_000);
    return { CLARION_RECEIPT: (push.message as { data: { clarionReceipt: string } }).data.clarionReceipt };
  },
};

/** What each example must visibly do. */
const expectations: Record<string, (output: { stdout: string; token: string }) => Promise<void>> = {
  'send.ts': async ({ token }) => {
    const push = await live.fakes.fcm.waitForRequest((request) => request.target?.value === token, 20_000);
    expect(JSON.stringify(push.message)).toContain('Sent with three lines of typed code');
  },
  'handle-errors.ts': async ({ stdout }) => {
    expect(stdout.trim()).toMatch(/^404 channel_not_found: .+ \(request \S+\)$/);
  },
  'live-activity.ts': async ({ stdout, token }) => {
    expect(stdout.trim()).toMatch(/^lva_\S+ ended$/);
    await live.fakes.fcm.waitForRequest(
      (request) => request.target?.value === token && JSON.stringify(request.message).includes('Delivered'),
      20_000,
    );
  },
  'any-endpoint.ts': async ({ stdout }) => {
    expect(stdout.trim()).toMatch(/^channels: news; used \d+ of \d+$/);
  },
  'receipts.ts': async ({ stdout }) => {
    expect(stdout.trim()).toBe('counted');
  },
  'retries-and-idempotency.ts': async ({ stdout }) => {
    expect(stdout.trim()).toBe('one notification: true');
  },
};

describe('packages/client/README.md', () => {
  it('shows exactly the example files, each once', () => {
    const contents = exampleFiles.map((file) => readFileSync(join(EXAMPLES, file), 'utf8').trim());
    expect([...readmeBlocks].sort()).toEqual([...contents].sort());
    expect(Object.keys(expectations).sort()).toEqual(exampleFiles);
  });

  it.each(exampleFiles)('%s runs against a live server', async (file) => {
    const account = await live.newAccount(['news']);
    const token = account.androidTokens.news!;
    const env = (await extraEnv[file]?.({ secretKey: account.secretKey, token })) ?? {};
    const { stdout } = await runExample(file, account.secretKey, env);
    await expectations[file]!({ stdout, token });
  });
});
