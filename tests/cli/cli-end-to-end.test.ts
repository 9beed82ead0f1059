import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { runCli, startServeProcess, type ServerProcess } from '../harness/cli-process.ts';
import { createIsolatedDatabase } from '../harness/isolated-database.ts';

/**
 * The operator's path, end to end, as separate processes on the dialect under test: `clarion serve` runs while the
 * CLI creates an account, a channel and keys on the same data, and the keys work against the running server.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'clarion-cli-'));
const env: Record<string, string | undefined> = { CLARION_DATA_DIR: dataDir, CLARION_LOG_LEVEL: 'info' };
let server: ServerProcess;
let ownDatabase: { url: string; drop(): Promise<void> } | null = null;

beforeAll(async () => {
  // On PostgreSQL a database of its own (serve migrates it): the server's delivery worker, which has no providers,
  // would otherwise claim other test files' jobs on the run's shared database and fail them (apns_not_configured).
  if (inject('postgresUrl')) {
    ownDatabase = await createIsolatedDatabase();
    env.CLARION_DATABASE_URL = ownDatabase.url;
  }
  server = await startServeProcess(env);
});
afterAll(async () => {
  await server?.stop();
  await ownDatabase?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('clarion CLI beside a running server', () => {
  it('creates an account, channel and keys that the running API accepts, and revokes a key at once', async () => {
    const account = runCli(
      [
        'accounts',
        'create',
        '--name',
        'Acme',
        '--plan',
        'starter',
        '--owner-email',
        `owner-${Date.now()}@example.com`,
        '--owner-password',
        'correct horse battery',
        '--json',
      ],
      env,
    );
    expect(account.status, account.stderr).toBe(0);
    expect(account.json).toMatchObject({ id: expect.stringMatching(/^acc_/), plan: 'starter', limit: 2500 });

    const channel = runCli(
      ['channels', 'create', '--account', account.json.id, '--code', 'news', '--name', 'News', '--json'],
      env,
    );
    expect(channel.json).toMatchObject({
      id: expect.stringMatching(/^chn_/),
      code: 'news',
      frequencyCap: null,
      quietHours: null,
    });
    const secret = runCli(
      ['keys', 'create', '--account', account.json.id, '--name', 'backend', '--channels', 'news', '--json'],
      env,
    );
    expect(secret.json.key).toMatch(/^clr_sk_/);
    const publishable = runCli(
      ['keys', 'create', '--account', account.json.id, '--name', 'app', '--publishable', '--json'],
      env,
    );
    expect(publishable.json.key).toMatch(/^clr_pk_/);

    const subscriber = await api('POST', '/api/v1/subscribers', publishable.json.key, {
      channelCode: 'news',
      platform: 'android',
      token: 'cli-token-1',
    });
    expect(subscriber.status).toBe(201);
    const sent = await api('POST', '/api/v1/notifications', secret.json.key, {
      channelCode: 'news',
      title: 'Hi',
      body: 'From the CLI test',
    });
    expect(sent.status).toBe(201);
    expect(sent.body.data).toMatchObject({ recipientCount: 1, status: 'queued' });

    const revoked = runCli(['keys', 'revoke', '--key-id', secret.json.id, '--json'], env);
    expect(revoked.json.revokedAt).not.toBeNull();
    expect((await api('GET', '/api/v1/usage', secret.json.key)).status).toBe(401);
  });

  it('rotates a key: the new value works and the old one stops', async () => {
    const account = runCli(['accounts', 'create', '--name', 'Rotate', '--json'], env);
    const key = runCli(['keys', 'create', '--account', account.json.id, '--name', 'backend', '--json'], env);
    expect((await api('GET', '/api/v1/usage', key.json.key)).status).toBe(200);
    const rotated = runCli(['keys', 'rotate', '--key-id', key.json.id, '--json'], env);
    expect(rotated.json).toMatchObject({
      name: 'backend',
      replaces: key.json.id,
      key: expect.stringMatching(/^clr_sk_/),
    });
    expect((await api('GET', '/api/v1/usage', rotated.json.key)).status).toBe(200);
    expect((await api('GET', '/api/v1/usage', key.json.key)).status).toBe(401);
  });

  it('sets a plan and limit that the API reports', async () => {
    const account = runCli(['accounts', 'create', '--name', 'Plan', '--json'], env);
    const key = runCli(['keys', 'create', '--account', account.json.id, '--name', 'backend', '--json'], env);
    const set = runCli(
      ['accounts', 'set-plan', '--account', account.json.id, '--plan', 'pro', '--limit', '12', '--json'],
      env,
    );
    expect(set.json).toMatchObject({ plan: 'pro', limit: 12 });
    const usage = await api('GET', '/api/v1/usage', key.json.key);
    expect(usage.body.data).toMatchObject({ plan: 'pro', limit: 12, used: 0, remaining: 12 });
  });

  it('sets the default time zone to an IANA name and refuses an abbreviation', () => {
    const account = runCli(['accounts', 'create', '--name', 'Zone', '--json'], env);
    const set = runCli(
      ['accounts', 'set-timezone', '--account', account.json.id, '--timezone', 'America/Los_Angeles', '--json'],
      env,
    );
    expect(set.json).toMatchObject({ id: account.json.id, defaultTimezone: 'America/Los_Angeles' });
    expect(
      runCli(['accounts', 'set-timezone', '--account', account.json.id, '--timezone', 'UTC', '--json'], env).json
        .defaultTimezone,
    ).toBe('UTC');
    const refused = runCli(
      ['accounts', 'set-timezone', '--account', account.json.id, '--timezone', 'PST', '--json'],
      env,
    );
    expect(refused.status).toBe(1);
    expect(refused.json.error).toEqual({
      code: 'validation_failed',
      message:
        '--timezone must be an IANA time zone name like America/Los_Angeles, Europe/Berlin or UTC; abbreviations like PST or CET are not accepted',
    });
  });

  it('turns an account’s receipts off and on, and refuses anything else', () => {
    const account = runCli(['accounts', 'create', '--name', 'Private', '--json'], env);
    const set = (value: string) =>
      runCli(['accounts', 'set-receipts', '--account', account.json.id, '--receipts', value, '--json'], env);
    expect(set('off').json).toEqual({ id: account.json.id, name: 'Private', receipts: false });
    expect(set('on').json).toEqual({ id: account.json.id, name: 'Private', receipts: true });
    const refused = set('maybe');
    expect(refused.status).toBe(1);
    expect(refused.json.error).toEqual({ code: 'validation_failed', message: '--receipts must be on or off' });
  });

  it('creates channels with a frequency cap and quiet hours, and refuses malformed ones', () => {
    const account = runCli(['accounts', 'create', '--name', 'Rules', '--json'], env);
    const capped = runCli(
      ['channels', 'create', '--account', account.json.id, '--code', 'deals', '--frequency-cap', '3/86400', '--json'],
      env,
    );
    expect(capped.json).toMatchObject({ code: 'deals', frequencyCap: { count: 3, periodSeconds: 86_400 } });
    const quiet = runCli(
      ['channels', 'create', '--account', account.json.id, '--code', 'night', '--quiet-hours', '22:00-07:00', '--json'],
      env,
    );
    expect(quiet.json).toMatchObject({ code: 'night', quietHours: { start: '22:00', end: '07:00' } });
    const badQuiet = runCli(
      ['channels', 'create', '--account', account.json.id, '--code', 'nap', '--quiet-hours', '22-7', '--json'],
      env,
    );
    expect(badQuiet.status).not.toBe(0);
    expect(badQuiet.stderr).toContain('--quiet-hours takes HH:MM-HH:MM');
    const badCap = runCli(
      ['channels', 'create', '--account', account.json.id, '--code', 'spam', '--frequency-cap', '3/30', '--json'],
      env,
    );
    expect(badCap.status).not.toBe(0);
    expect(badCap.stderr).toContain('--frequency-cap takes COUNT/SECONDS');
  });

  it("moves an account's join pages to a slug of its choice; the old address stops", async () => {
    const account = runCli(['accounts', 'create', '--name', 'Slug Test', '--json'], env);
    runCli(['channels', 'create', '--account', account.json.id, '--code', 'news', '--json'], env);
    const key = runCli(['keys', 'create', '--account', account.json.id, '--name', 'backend', '--json'], env);
    const on = await api('POST', '/api/v1/channels/news/update', key.json.key, { joinPage: true });
    const oldUrl = new URL(on.body.data.joinUrl as string).pathname;
    const slug = `news-${Date.now()}`;
    const set = runCli(['accounts', 'set-slug', '--account', account.json.id, '--slug', slug, '--json'], env);
    expect(set.status).toBe(0);
    expect(set.json).toMatchObject({ id: account.json.id, slug, previousSlug: oldUrl.split('/')[2] });
    expect((await fetch(`${server.baseUrl}/join/${slug}/news`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}${oldUrl}`)).status).toBe(404);
    expect(
      runCli(['accounts', 'set-slug', '--account', account.json.id, '--slug', 'Not A Slug', '--json'], env).json.error
        .code,
    ).toBe('validation_failed');
    const other = runCli(['accounts', 'create', '--name', 'Other', '--json'], env);
    expect(
      runCli(['accounts', 'set-slug', '--account', other.json.id, '--slug', slug, '--json'], env).json.error.code,
    ).toBe('conflict');
  });

  it('reports errors as one JSON object and a non-zero exit', () => {
    const missing = runCli(['channels', 'create', '--account', 'acc_nope', '--code', 'news', '--json'], env);
    expect(missing.status).toBe(1);
    expect(missing.json).toEqual({ error: { code: 'not_found', message: 'no account acc_nope' } });
    const badCode = runCli(['channels', 'create', '--account', 'acc_nope', '--code', 'Bad Code', '--json'], env);
    expect(badCode.json.error.code).toBe('validation_failed');
    const badPlan = runCli(['accounts', 'create', '--name', 'X', '--plan', 'gold', '--json'], env);
    expect(badPlan.json.error.message).toMatch(/--plan must be one of free, starter, pro, business/);
    const migrate = runCli(['migrate', '--json'], env);
    expect(migrate.status).toBe(0);
    expect(migrate.json).toMatchObject({ applied: [] });
  });

  it('stops start-up on a bad option with a message naming the variable', () => {
    const result = runCli(['serve'], { ...env, CLARION_PORT: 'eighty' });
    expect(result.status).toBe(78);
    expect(result.stderr).toMatch(/CLARION_PORT: must be a TCP port/);
  });
});

describe('clarion web-push rotate-keys', () => {
  it('the server generated a VAPID pair on start; rotation is refused without --yes and replaces the pair with it', async () => {
    const before = (await (await fetch(`${server.baseUrl}/api/v1/web-push/public-key`)).json()) as any;
    expect(Buffer.from(before.data.publicKey, 'base64url').length).toBe(65);
    // The default subject (CLARION_BASE_URL is http://localhost) is one Apple refuses: the start-up log says so.
    expect(server.output()).toContain('refuses a localhost VAPID subject');

    const refused = runCli(['web-push', 'rotate-keys', '--json'], env);
    expect(refused.status).not.toBe(0);
    expect(refused.json.error).toMatchObject({
      code: 'confirmation_required',
      message: expect.stringContaining('stops receiving pushes'),
    });
    const unchanged = (await (await fetch(`${server.baseUrl}/api/v1/web-push/public-key`)).json()) as any;
    expect(unchanged.data.publicKey).toBe(before.data.publicKey);

    const rotated = runCli(['web-push', 'rotate-keys', '--yes', '--json'], env);
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.json).toMatchObject({
      publicKey: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/),
      warning: expect.stringContaining('subscribe anew'),
    });
    expect(rotated.json.publicKey).not.toBe(before.data.publicKey);
    const after = (await (await fetch(`${server.baseUrl}/api/v1/web-push/public-key`)).json()) as any;
    expect(after.data.publicKey).toBe(rotated.json.publicKey);
  });
});

describe('clarion serve with a secret key that cannot open the stored VAPID key', () => {
  it('still starts and serves the public key, and says in its log that web pushes will fail', async () => {
    const other = await startServeProcess({ ...env, CLARION_SECRET_KEY: 'ab'.repeat(32) });
    try {
      const publicKey = (await (await fetch(`${other.baseUrl}/api/v1/web-push/public-key`)).json()) as any;
      const expected = (await (await fetch(`${server.baseUrl}/api/v1/web-push/public-key`)).json()) as any;
      expect(publicKey.data.publicKey).toBe(expected.data.publicKey);
      expect(other.output()).toContain('the stored VAPID private key does not open with this CLARION_SECRET_KEY');
    } finally {
      await other.stop();
    }
  });
});
