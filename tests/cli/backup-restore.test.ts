import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServeProcess, type ServerProcess } from '../harness/cli-process.ts';

/**
 * `clarion backup` and `clarion restore`, as an operator runs them: the backup is taken while
 * `clarion serve` runs and writes, and restored into a fresh data directory, where a new server serves the same keys,
 * subscribers and VAPID key pair. SQLite only, whatever the dialect of the run: on PostgreSQL the commands point at
 * pg_dump, which the last test checks.
 */
const root = mkdtempSync(join(tmpdir(), 'clarion-backup-'));
const original = join(root, 'original');
const restored = join(root, 'restored');
const backupFile = join(root, 'clarion-backup.db');
const sqlite = (dataDir: string, extra: Record<string, string | undefined> = {}) => ({
  CLARION_DATA_DIR: dataDir,
  CLARION_DATABASE_URL: undefined,
  CLARION_SECRET_KEY: undefined,
  ...extra,
});
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(root, { recursive: true, force: true });
});

async function api(server: ServerProcess, method: string, path: string, key?: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('clarion backup and restore', () => {
  let keys: { secret: string; publishable: string };
  let vapidPublicKey: string;

  it('backs up while the server runs and writes', async () => {
    const server = await startServeProcess(sqlite(original));
    servers.push(server);
    const account = runCli(['accounts', 'create', '--name', 'Backed up', '--json'], sqlite(original));
    runCli(['channels', 'create', '--account', account.json.id, '--code', 'news', '--json'], sqlite(original));
    keys = {
      secret: runCli(['keys', 'create', '--account', account.json.id, '--name', 'backend', '--json'], sqlite(original))
        .json.key,
      publishable: runCli(
        ['keys', 'create', '--account', account.json.id, '--name', 'app', '--publishable', '--json'],
        sqlite(original),
      ).json.key,
    };
    for (const token of ['backup-token-1', 'backup-token-2']) {
      expect(
        (
          await api(server, 'POST', '/api/v1/subscribers', keys.publishable, {
            channelCode: 'news',
            platform: 'android',
            token,
          })
        ).status,
      ).toBe(201);
    }
    vapidPublicKey = (await api(server, 'GET', '/api/v1/web-push/public-key')).body.data.publicKey;

    // Requests keep arriving while the backup runs: it must neither wait for them nor break them. They use the secret
    // key: 20 more registrations with the publishable key from this one address would exceed its burst of 20
    // (CLARION_PUBLISHABLE_RATE_LIMIT_BURST) on a fast enough machine, and a 429 would say nothing about the backup.
    const writes = Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        api(server, 'POST', '/api/v1/subscribers', keys.secret, {
          channelCode: 'news',
          platform: 'android',
          token: `during-${index}`,
        }),
      ),
    );
    const backup = runCli(['backup', '--to', backupFile, '--json'], sqlite(original));
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.json).toMatchObject({ file: backupFile, secretKeyIncluded: true });
    expect((await writes).every((write) => write.status === 201)).toBe(true);
    // It may hold the key: owner-only.
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    await server.stop();
  });

  it('restores into an empty data directory, and a server there serves the same keys and subscribers', async () => {
    const restore = runCli(['restore', '--from', backupFile, '--json'], sqlite(restored));
    expect(restore.status, restore.stderr).toBe(0);
    expect(restore.json).toMatchObject({ dataDir: restored, secretKeyFrom: 'backup' });
    expect(readFileSync(join(restored, 'secret.key'), 'utf8')).toBe(readFileSync(join(original, 'secret.key'), 'utf8'));
    expect(statSync(join(restored, 'secret.key')).mode & 0o777).toBe(0o600);

    const server = await startServeProcess(sqlite(restored));
    servers.push(server);
    expect((await api(server, 'GET', '/api/v1/channels', keys.secret)).body.data).toMatchObject([{ code: 'news' }]);
    // The two subscribers registered before the backup are there (the 20 written during it may or may not be).
    const again = await api(server, 'POST', '/api/v1/subscribers', keys.publishable, {
      channelCode: 'news',
      platform: 'android',
      token: 'backup-token-1',
    });
    expect(again.status).toBe(200);
    const sent = await api(server, 'POST', '/api/v1/notifications', keys.secret, {
      channelCode: 'news',
      title: 'Restored',
    });
    expect(sent.status).toBe(201);
    expect(sent.body.data.recipientCount).toBeGreaterThanOrEqual(2);
    // The sealed VAPID private key opened with the restored key: the same pair, not a new one.
    expect(server.output()).toContain('"source":"database"');
    expect((await api(server, 'GET', '/api/v1/web-push/public-key')).body.data.publicKey).toBe(vapidPublicKey);
    await server.stop();
  });

  it('refuses a data directory that already holds an instance, and changes nothing there', () => {
    const before = readFileSync(join(restored, 'clarion.db'));
    const refused = runCli(['restore', '--from', backupFile, '--json'], sqlite(restored));
    expect(refused.status).toBe(1);
    expect(refused.json.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('restore fills an empty data directory'),
    });
    expect(readFileSync(join(restored, 'clarion.db')).equals(before)).toBe(true);
  });

  it('refuses a file that is not a backup, and a backup file that exists already', () => {
    const notBackup = join(root, 'not-a-backup.txt');
    writeFileSync(notBackup, 'hello');
    const target = join(root, 'empty-1');
    expect(runCli(['restore', '--from', notBackup, '--json'], sqlite(target)).json.error).toMatchObject({
      code: 'restore_failed',
      message: expect.stringContaining('is not a Clarion backup'),
    });
    expect(existsSync(join(target, 'clarion.db'))).toBe(false);
    expect(runCli(['backup', '--to', backupFile, '--json'], sqlite(original)).json.error).toMatchObject({
      code: 'backup_failed',
      message: expect.stringContaining('exists already'),
    });
  });

  it('without the secret key, restores only with the right CLARION_SECRET_KEY', () => {
    const keyless = join(root, 'keyless.db');
    const backup = runCli(['backup', '--to', keyless, '--without-secret-key', '--json'], sqlite(original));
    expect(backup.json).toMatchObject({ secretKeyIncluded: false });

    const target = join(root, 'empty-2');
    expect(runCli(['restore', '--from', keyless, '--json'], sqlite(target)).json.error.code).toBe(
      'secret_key_required',
    );
    const wrong = runCli(
      ['restore', '--from', keyless, '--json'],
      sqlite(target, { CLARION_SECRET_KEY: 'ab'.repeat(32) }),
    );
    expect(wrong.json.error).toMatchObject({
      code: 'secret_key_mismatch',
      message: expect.stringContaining('nothing was restored'),
    });
    expect(existsSync(join(target, 'clarion.db'))).toBe(false);

    const key = readFileSync(join(original, 'secret.key'), 'utf8').trim();
    const right = runCli(['restore', '--from', keyless, '--json'], sqlite(target, { CLARION_SECRET_KEY: key }));
    expect(right.status, right.stderr).toBe(0);
    expect(right.json).toMatchObject({ secretKeyFrom: 'CLARION_SECRET_KEY' });
    // The key stays where the operator keeps it: not written into the data directory.
    expect(existsSync(join(target, 'secret.key'))).toBe(false);
  });

  it('points at pg_dump on PostgreSQL', () => {
    const onPostgres = sqlite(join(root, 'pg'), { CLARION_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused' });
    expect(runCli(['backup', '--to', join(root, 'pg.db'), '--json'], onPostgres).json.error).toMatchObject({
      code: 'postgres_backup',
      message: expect.stringContaining('pg_dump'),
    });
    expect(runCli(['restore', '--from', backupFile, '--json'], onPostgres).json.error).toMatchObject({
      code: 'postgres_backup',
      message: expect.stringContaining('pg_dump'),
    });
  });
});
