import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { del, get, post } from '../../harness/requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';
import { githubSignature, sample } from './relay-samples.ts';

/**
 * POST /api/v1/relays/github-actions?relay=… (docs/live-activities.md, "Relays"): GitHub's own workflow_run and
 * workflow_job payloads (samples/) drive one `progress` activity per run; the signature is the only credential.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

interface Relay {
  id: string;
  secret: string;
  url: string;
}

async function newRelay(account?: TestAccount): Promise<{ account: TestAccount; relay: Relay }> {
  const owner = account ?? (await t.newAccount({ channels: ['builds'] }));
  const relay = expectSuccess(
    await post(t.app, '/api/v1/relays', owner.secretKey, { sender: 'github-actions', channelCode: 'builds' }),
    201,
  );
  return { account: owner, relay };
}

/** What GitHub sends: the payload's exact text, its event name and its signature under `secret`. */
function deliver(relay: Relay, event: string, body: string, secret = relay.secret) {
  const path = new URL(relay.url).pathname + new URL(relay.url).search;
  return post(t.app, path, null, body, {
    'x-github-event': event,
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    'x-hub-signature-256': githubSignature(secret, body),
  });
}

async function activities(account: TestAccount) {
  return expectSuccess(await get(t.app, '/api/v1/live-activities?channelCode=builds', account.secretKey), 200);
}

describe('POST /api/v1/relays/github-actions', () => {
  it('→ 200: a run starts its activity, its job moves the progress, the run’s end ends it', async () => {
    const { account, relay } = await newRelay();
    const requested = expectSuccess(
      await deliver(relay, 'workflow_run', sample('github-workflow-run-requested').text),
      200,
    );
    const key = 'github-508123456-12099432811-1';
    expect(requested.results).toEqual([{ key, event: 'started', liveActivityId: expect.stringMatching(/^lva_/) }]);
    const id = requested.results[0].liveActivityId;
    const view = () => get(t.app, `/api/v1/live-activities/${id}`, account.secretKey);
    expect(expectSuccess(await view(), 200)).toMatchObject({
      template: 'progress',
      streamKey: key,
      fields: { title: 'octo-org/shop: CI #482', progress: 0, status: 'Queued' },
    });

    t.clock.advance(1_000);
    const job = sample('github-workflow-job-in-progress').text;
    expect(expectSuccess(await deliver(relay, 'workflow_job', job), 200).results).toEqual([
      { key, event: 'updated', liveActivityId: id },
    ]);
    // Two of the job's four steps are done, the third under way.
    expect(expectSuccess(await view(), 200).fields).toEqual({
      title: 'octo-org/shop: CI #482',
      progress: 0.5,
      status: 'build · Run npm test',
    });
    // A redelivery says what the activity already shows: nothing is pushed or charged.
    const used = (await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used;
    expect(expectSuccess(await deliver(relay, 'workflow_job', job), 200).results[0].event).toBe('unchanged');
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(used);

    t.clock.advance(1_000);
    expectSuccess(await deliver(relay, 'workflow_job', sample('github-workflow-job-completed').text), 200);
    expect(
      expectSuccess(await deliver(relay, 'workflow_run', sample('github-workflow-run-completed').text), 200).results,
    ).toEqual([{ key, event: 'ended', liveActivityId: id }]);
    expect(expectSuccess(await view(), 200)).toMatchObject({
      status: 'ended',
      fields: { progress: 1, status: 'Succeeded' },
    });
    const relays = expectSuccess(await get(t.app, '/api/v1/relays', account.secretKey), 200);
    expect(relays[0].lastUsedAt).not.toBeNull();
  });

  it('never starts a finished run again: late run and job deliveries are ignored', async () => {
    const { account, relay } = await newRelay();
    expectSuccess(await deliver(relay, 'workflow_run', sample('github-workflow-run-requested').text), 200);
    expectSuccess(await deliver(relay, 'workflow_run', sample('github-workflow-run-completed').text), 200);
    for (const [event, name] of [
      ['workflow_run', 'github-workflow-run-requested'],
      ['workflow_job', 'github-workflow-job-in-progress'],
      ['workflow_run', 'github-workflow-run-completed'],
    ] as const) {
      expect(expectSuccess(await deliver(relay, event, sample(name).text), 200).results).toEqual([
        { key: 'github-508123456-12099432811-1', event: 'ignored', liveActivityId: null },
      ]);
    }
    expect(await activities(account)).toHaveLength(1);
  });

  it('gives a re-run (a new attempt) an activity of its own, and ends a failed run without filling it', async () => {
    const { account, relay } = await newRelay();
    const first = sample('github-workflow-run-requested').json;
    const failed = sample('github-workflow-run-completed').json;
    failed.workflow_run.conclusion = 'failure';
    expectSuccess(await deliver(relay, 'workflow_run', JSON.stringify(first)), 200);
    expectSuccess(await deliver(relay, 'workflow_run', JSON.stringify(failed)), 200);
    first.workflow_run.run_attempt = 2;
    const rerun = expectSuccess(await deliver(relay, 'workflow_run', JSON.stringify(first)), 200).results[0];
    expect(rerun).toMatchObject({ key: 'github-508123456-12099432811-2', event: 'started' });
    const [newest, oldest] = await activities(account);
    expect(newest.id).toBe(rerun.liveActivityId);
    expect(oldest).toMatchObject({ status: 'ended', fields: { progress: 0, status: 'Failed' } });
  });

  it('→ 200 for ping and for events it does not read, changing nothing', async () => {
    const { account, relay } = await newRelay();
    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1, hook: { type: 'Repository' } });
    expect(expectSuccess(await deliver(relay, 'ping', ping), 200)).toEqual({ results: [] });
    expect(expectSuccess(await deliver(relay, 'push', JSON.stringify({ ref: 'refs/heads/main' })), 200)).toEqual({
      results: [],
    });
    expect(await activities(account)).toEqual([]);
  });

  it('→ 400 for a signed workflow_run that lacks what a run has', async () => {
    const { account, relay } = await newRelay();
    const broken = sample('github-workflow-run-requested').json;
    delete broken.workflow_run.run_number;
    const response = await deliver(relay, 'workflow_run', JSON.stringify(broken));
    expectError(response, 'validation_failed');
    expect(JSON.stringify(response.body.error.details)).toContain('run_number');
    expect(await activities(account)).toEqual([]);
  });

  it('→ 401 for a wrong secret, a changed body, no signature, an unknown or deleted relay; all alike', async () => {
    const { account, relay } = await newRelay();
    const body = sample('github-workflow-run-requested').text;
    const other = (await newRelay()).relay;
    const answers = [
      await deliver(relay, 'workflow_run', body, other.secret),
      await post(t.app, new URL(relay.url).pathname + new URL(relay.url).search, null, body.replace('482', '483'), {
        'x-github-event': 'workflow_run',
        'x-hub-signature-256': githubSignature(relay.secret, body),
      }),
      await post(t.app, new URL(relay.url).pathname + new URL(relay.url).search, null, body, {
        'x-github-event': 'workflow_run',
      }),
      await deliver(
        { ...relay, url: `${t.config.baseUrl}/api/v1/relays/github-actions?relay=rly_nope` },
        'workflow_run',
        body,
      ),
    ];
    expectSuccess(await del(t.app, `/api/v1/relays/${relay.id}`, account.secretKey), 200);
    answers.push(await deliver(relay, 'workflow_run', body));
    for (const answer of answers) expectError(answer, 'unauthorized');
    expect(new Set(answers.map((answer) => answer.body.error.message)).size).toBe(1);
    expect(await activities(account)).toEqual([]);
  });

  it('→ 400 without the relay parameter, 415 for a form-encoded payload', async () => {
    const { relay } = await newRelay();
    expectError(await post(t.app, '/api/v1/relays/github-actions', null, '{}'), 'validation_failed');
    const form = await t.app.inject({
      method: 'POST',
      url: new URL(relay.url).pathname + new URL(relay.url).search,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'ping' },
      payload: 'payload=%7B%7D',
    });
    expect(form.statusCode).toBe(415);
  });

  it('→ 429 when the month’s quota is used up, and the redelivery after it goes through', async () => {
    const account = await t.newAccount({ channels: ['builds'], plan: 'free', limit: 1 });
    const { relay } = await newRelay(account);
    expectSuccess(await deliver(relay, 'workflow_run', sample('github-workflow-run-requested').text), 200);
    const job = sample('github-workflow-job-in-progress').text;
    expectError(await deliver(relay, 'workflow_job', job), 'quota_exceeded');
  });
});
