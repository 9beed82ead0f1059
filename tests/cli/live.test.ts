import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsync } from '../harness/cli-process.ts';
import { startLiveServer, type LiveServer } from '../harness/live-server.ts';

/** `clarion live start|update|end` against a live `clarion serve` whose worker delivers to the fake FCM. */
let live: LiveServer;
beforeAll(async () => {
  live = await startLiveServer();
});
afterAll(async () => {
  await live?.close();
});

const envFor = (apiKey: string) => ({ CLARION_URL: live.baseUrl, CLARION_API_KEY: apiKey });

async function liveActivitiesOf(apiKey: string): Promise<any[]> {
  const response = await fetch(`${live.baseUrl}/api/v1/live-activities`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return ((await response.json()) as any).data;
}

describe('clarion live', () => {
  it('starts, updates and ends an activity; the Android subscriber gets each step', async () => {
    const account = await live.newAccount(['orders']);
    const env = envFor(account.secretKey);
    const token = account.androidTokens.orders;

    const started = await runCliAsync(
      [
        'live',
        'start',
        '--channel',
        'orders',
        '--template',
        'progress',
        '--fields',
        '{"title": "Order #42", "progress": 0.1, "status": "Packing"}',
        '--alert-title',
        'Order #42',
        '--json',
      ],
      env,
    );
    expect(started.status, started.stderr).toBe(0);
    expect(started.json).toMatchObject({
      id: expect.stringMatching(/^lva_/),
      template: 'progress',
      status: 'active',
      recipientCount: 1,
      alert: { title: 'Order #42' },
    });
    const id: string = started.json.id;

    const updated = await runCliAsync(
      ['live', 'update', id, '--fields', '{"progress": 0.6, "status": "On its way"}'],
      env,
    );
    expect(updated.status, updated.stderr).toBe(0);
    expect(updated.stdout.trim()).toBe(
      `Updated Live Activity ${id} (progress, active, 1 subscriber): {"title":"Order #42","progress":0.6,"status":"On its way"}`,
    );

    const ended = await runCliAsync(
      ['live', 'end', id, '--fields', '{"progress": 1, "status": "Delivered"}', '--json'],
      env,
    );
    expect(ended.status, ended.stderr).toBe(0);
    expect(ended.json).toMatchObject({ id, status: 'ended', fields: { progress: 1, status: 'Delivered' } });

    for (const status of ['Packing', 'On its way', 'Delivered']) {
      await live.fakes.fcm.waitForRequest(
        (request) => request.target?.value === token && JSON.stringify(request.message).includes(status),
        20_000,
      );
    }
  });

  it('lists every template in its help', async () => {
    const help = await runCliAsync(['live', 'start', '--help'], {});
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('one of progress, timer, score, steps, metrics, status');
  });

  it('starts a status and a metrics activity; the Android subscriber gets their fields', async () => {
    const account = await live.newAccount(['ops']);
    const env = envFor(account.secretKey);
    const token = account.androidTokens.ops;
    const status = await runCliAsync(
      [
        'live',
        'start',
        '--channel',
        'ops',
        '--template',
        'status',
        '--fields',
        '{"title": "db-2", "state": "error", "message": "Disk full"}',
        '--json',
      ],
      env,
    );
    expect(status.status, status.stderr).toBe(0);
    expect(status.json).toMatchObject({
      template: 'status',
      fields: { state: 'error', message: 'Disk full' },
      alert: { title: 'db-2', body: 'Error · Disk full' },
    });
    const metrics = await runCliAsync(
      [
        'live',
        'start',
        '--channel',
        'ops',
        '--template',
        'metrics',
        '--fields',
        '{"title": "api-1", "metrics": [{"label": "CPU", "value": 72, "unit": "%", "trend": "up"}]}',
        '--json',
      ],
      env,
    );
    expect(metrics.status, metrics.stderr).toBe(0);
    expect(metrics.json).toMatchObject({ template: 'metrics', alert: { title: 'api-1', body: 'CPU 72 % ↑' } });
    for (const template of ['status', 'metrics']) {
      await live.fakes.fcm.waitForRequest(
        (request) => request.target?.value === token && (request.message as any).data?.template === template,
        20_000,
      );
    }
  });

  it('ends without final fields', async () => {
    const account = await live.newAccount(['orders']);
    const env = envFor(account.secretKey);
    const started = await runCliAsync(
      [
        'live',
        'start',
        '--channel',
        'orders',
        '--template',
        'steps',
        '--fields',
        '{"title": "Setup", "currentStep": 1, "totalSteps": 3}',
        '--json',
      ],
      env,
    );
    const ended = await runCliAsync(['live', 'end', started.json.id, '--json'], env);
    expect(ended.status, ended.stderr).toBe(0);
    expect(ended.json).toMatchObject({ status: 'ended', fields: { currentStep: 1 } });
  });
});

describe('clarion live refused', () => {
  it('a bad key: exit 1 and unauthorized on stderr', async () => {
    const started = await runCliAsync(
      ['live', 'start', '--channel', 'orders', '--template', 'progress', '--fields', '{"title": "x", "progress": 0}'],
      envFor('clr_sk_thisisnotakey'),
    );
    expect(started.status).toBe(1);
    expect(started.stderr).toMatch(/^clarion: unauthorized: /);
  });

  it('an update of an ended activity: activity_ended', async () => {
    const account = await live.newAccount(['orders']);
    const env = envFor(account.secretKey);
    const started = await runCliAsync(
      [
        'live',
        'start',
        '--channel',
        'orders',
        '--template',
        'progress',
        '--fields',
        '{"title": "x", "progress": 0}',
        '--json',
      ],
      env,
    );
    await runCliAsync(['live', 'end', started.json.id], env);
    const updated = await runCliAsync(
      ['live', 'update', started.json.id, '--fields', '{"progress": 0.5}', '--json'],
      env,
    );
    expect(updated.status).toBe(1);
    expect(updated.stderr).toMatch(/^clarion: activity_ended: /);
    expect(updated.json.error).toMatchObject({ code: 'activity_ended', status: 409 });
  });

  it('schedules an activity with --send-at and cancels it with `live cancel`', async () => {
    const account = await live.newAccount(['orders']);
    const env = envFor(account.secretKey);
    const sendAt = new Date(Date.now() + 3600_000).toISOString();
    const fields = '{"title": "Order #43", "progress": 0}';
    const started = await runCliAsync(
      ['live', 'start', '--channel', 'orders', '--template', 'progress', '--fields', fields, '--send-at', sendAt],
      env,
    );
    expect(started.status, started.stderr).toBe(0);
    const [id] = /lva_[0-9a-z]+/.exec(started.stdout)!;
    expect(started.stdout.trim()).toBe(
      `Scheduled Live Activity ${id} (progress, scheduled, starts ${sendAt}): {"title":"Order #43","progress":0}`,
    );
    const canceled = await runCliAsync(['live', 'cancel', id, '--json'], env);
    expect(canceled.status, canceled.stderr).toBe(0);
    expect(canceled.json).toMatchObject({ id, status: 'canceled', sendAt, startedAt: null });
    const again = await runCliAsync(['live', 'cancel', id, '--json'], env);
    expect(again.status).toBe(1);
    expect(again.json.error).toMatchObject({ code: 'not_cancelable', status: 409 });
  });

  it('fields the template refuses: validation_failed from the server, nothing started', async () => {
    const account = await live.newAccount(['orders']);
    const started = await runCliAsync(
      ['live', 'start', '--channel', 'orders', '--template', 'progress', '--fields', '{"title": "x", "progress": 45}'],
      envFor(account.secretKey),
    );
    expect(started.status).toBe(1);
    expect(started.stderr).toMatch(/^clarion: validation_failed: /);
    expect(started.stderr).toContain('progress');
    expect(await liveActivitiesOf(account.secretKey)).toEqual([]);
  });

  it('--fields that is not a JSON object: refused before any request', async () => {
    const account = await live.newAccount(['orders']);
    const started = await runCliAsync(
      ['live', 'start', '--channel', 'orders', '--template', 'progress', '--fields', 'progress=0.5'],
      envFor(account.secretKey),
    );
    expect(started.status).toBe(1);
    expect(started.stderr).toContain('--fields must be a JSON object');
    expect(await liveActivitiesOf(account.secretKey)).toEqual([]);
  });

  it('--alert-body without --alert-title: refused before any request', async () => {
    const started = await runCliAsync(
      ['live', 'update', 'lva_x', '--fields', '{}', '--alert-body', 'text'],
      envFor('clr_sk_x'),
    );
    expect(started.status).toBe(1);
    expect(started.stderr).toContain('--alert-body needs --alert-title');
  });
});
