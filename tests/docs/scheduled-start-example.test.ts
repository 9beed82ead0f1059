import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness/test-app.ts';

/**
 * docs/live-activities.md, "Scheduled starts": the curl example runs as written against Clarion listening on a port,
 * its clock before the example's sendAt, and leaves one scheduled activity answering as the comment under it says.
 */
const doc = readFileSync(new URL('../../docs/live-activities.md', import.meta.url), 'utf8');
const example = [...doc.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
  .map((match) => match[1]!)
  .find((block) => block.includes('"sendAt"'));

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await startTestApp();
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t.close());

function sh(text: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', text], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout }));
  });
}

describe('the scheduled start example of docs/live-activities.md', () => {
  it('schedules the activity for its sendAt, as the comment shows', async () => {
    expect(example, 'a sh block with "sendAt"').toBeDefined();
    const sendAt = /"sendAt": "([^"]+)"/.exec(example!)![1]!;
    t.clock.set(Date.parse(sendAt) - 24 * 3600_000);
    const account = await t.newAccount({ channels: ['matches'] });
    const run = await sh(example!, { CLARION_URL: baseUrl, CLARION_KEY: account.secretKey });
    expect(run.status).toBe(0);
    const answer = JSON.parse(run.stdout) as { data: Record<string, unknown> };
    const shown = /# → 201 (\{.*\})/.exec(example!)![1]!;
    expect(answer.data).toMatchObject({
      status: /"status": "(\w+)"/.exec(shown)![1],
      sendAt: /"sendAt": "([^"]+)"/.exec(shown)![1],
      startedAt: null,
    });
  });
});
