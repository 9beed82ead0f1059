import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docShellBlock, runShell } from '../harness/doc-shell.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';

/**
 * docs/live-activities.md, "Streams": the deploy script runs as written with sh and curl against Clarion listening on
 * a port, its `make` steps standing in for a build that passes, and leaves one activity through its three steps, ended.
 */
const script = docShellBlock('live-activities.md', '/live-activities/streams/');

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await startTestApp();
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t.close());

describe('the stream deploy script of docs/live-activities.md', () => {
  it('starts, steps and ends one activity, keyed by nothing but the build id', async () => {
    expect(script, 'a sh block that calls /live-activities/streams/').toBeDefined();
    const account = await t.newAccount({ channels: ['deploys'] });
    // `make build`, `make test`, `make deploy`: a build that passes.
    const runnable = script!.replace(/make \w+/g, 'true');
    const run = await runShell(runnable, {
      args: ['4711'],
      env: { CLARION_URL: baseUrl, CLARION_KEY: account.secretKey },
    });
    expect(run, run.stderr).toMatchObject({ status: 0 });

    const [activity, ...others] = await t.store.db
      .selectFrom('live_activities')
      .selectAll()
      .where('account_id', '=', account.id)
      .execute();
    expect(others).toEqual([]);
    expect(activity).toMatchObject({ stream_key: 'deploy-4711', status: 'ended', template: 'steps' });
    expect(JSON.parse(activity!.fields)).toEqual({
      title: 'Deploy 4711',
      currentStep: 3,
      totalSteps: 3,
      status: 'Live',
    });
    const events = await t.store.db
      .selectFrom('live_activity_events')
      .select('event')
      .where('live_activity_id', '=', activity!.id)
      .orderBy('push_timestamp')
      .execute();
    expect(events.map((row) => row.event)).toEqual(['start', 'update', 'update', 'end']);
  });
});
