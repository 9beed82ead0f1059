import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docShellBlock, runShell } from '../harness/doc-shell.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';

/**
 * docs/live-activities.md, "Scheduled starts": the curl example runs as written against Clarion listening on a port,
 * its clock before the example's sendAt, and leaves one scheduled activity answering as the comment under it says.
 */
const example = docShellBlock('live-activities.md', '"sendAt"');

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await startTestApp();
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t.close());

describe('the scheduled start example of docs/live-activities.md', () => {
  it('schedules the activity for its sendAt, as the comment shows', async () => {
    expect(example, 'a sh block with "sendAt"').toBeDefined();
    const sendAt = /"sendAt": "([^"]+)"/.exec(example!)![1]!;
    t.clock.set(Date.parse(sendAt) - 24 * 3600_000);
    const account = await t.newAccount({ channels: ['matches'] });
    const run = await runShell(example!, { env: { CLARION_URL: baseUrl, CLARION_KEY: account.secretKey } });
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
