import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApnsSigningKey, createFcmServiceAccount, writeCredentialFile } from '../../tools/fakes/index.ts';
import { runCli } from '../harness/cli-process.ts';
import { createIsolatedDatabase } from '../harness/isolated-database.ts';

/** `clarion apps create|update|list|delete` and `clarion channels create --app`, as docs/cli.md gives them. */
const dataDir = mkdtempSync(join(tmpdir(), 'clarion-apps-cli-'));
const env: Record<string, string | undefined> = { CLARION_DATA_DIR: dataDir, CLARION_LOG_LEVEL: 'warn' };
let ownDatabase: { url: string; drop(): Promise<void> } | null = null;

beforeAll(async () => {
  if (inject('postgresUrl')) {
    ownDatabase = await createIsolatedDatabase();
    env.CLARION_DATABASE_URL = ownDatabase.url;
  }
});
afterAll(async () => {
  await ownDatabase?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('clarion apps', () => {
  // About a dozen CLI processes, each starting tsx: several seconds apiece on a busy 2-core machine.
  it(
    'creates an app from key files, binds a channel to it, lists, updates and deletes it, never printing a private key',
    { timeout: 240_000 },
    () => {
      const key = createApnsSigningKey();
      const keyFile = writeCredentialFile(join(dataDir, 'AuthKey.p8'), key);
      const serviceAccount = createFcmServiceAccount({
        projectId: 'cli-project',
        tokenUri: 'https://oauth2.googleapis.com/token',
      });
      const accountFile = writeCredentialFile(join(dataDir, 'service-account.json'), serviceAccount);
      const account = runCli(['accounts', 'create', '--name', 'Team', '--json'], env);
      expect(account.status, account.stderr).toBe(0);
      const accountId = account.json.id as string;

      const created = runCli(
        [
          'apps',
          'create',
          '--account',
          accountId,
          '--name',
          'Shop',
          '--apns-key-file',
          keyFile,
          '--apns-key-id',
          key.keyId,
          '--apns-team-id',
          key.teamId,
          '--apns-topic',
          'com.example.shop',
          '--fcm-service-account-file',
          accountFile,
          '--json',
        ],
        env,
      );
      expect(created.status, created.stderr).toBe(0);
      expect(created.json).toMatchObject({
        id: expect.stringMatching(/^app_/),
        name: 'Shop',
        ios: { keyId: key.keyId, teamId: key.teamId, bundleId: 'com.example.shop' },
        android: { projectId: 'cli-project' },
      });
      expect(created.stdout).not.toContain('PRIVATE KEY');
      const appId = created.json.id as string;

      const channel = runCli(
        [
          'channels',
          'create',
          '--account',
          accountId,
          '--code',
          'orders',
          '--name',
          'Orders',
          '--app',
          appId,
          '--json',
        ],
        env,
      );
      expect(channel.status, channel.stderr).toBe(0);
      expect(channel.json).toMatchObject({ code: 'orders', appId });
      const unknownApp = runCli(
        ['channels', 'create', '--account', accountId, '--code', 'other', '--app', 'app_nope', '--json'],
        env,
      );
      expect(unknownApp.status).not.toBe(0);
      expect(unknownApp.json.error.code).toBe('not_found');

      // A service account whose token_uri is not Google's endpoint is refused, and no app is made.
      const foreignFile = join(dataDir, 'foreign-token-uri.json');
      writeFileSync(foreignFile, JSON.stringify({ ...serviceAccount.json, token_uri: 'http://127.0.0.1:8080/token' }));
      const foreign = runCli(
        [
          'apps',
          'create',
          '--account',
          accountId,
          '--name',
          'Foreign',
          '--fcm-service-account-file',
          foreignFile,
          '--json',
        ],
        env,
      );
      expect(foreign.status).not.toBe(0);
      expect(foreign.json.error).toMatchObject({
        code: 'validation_failed',
        message: expect.stringContaining(
          '--fcm-service-account-file: "token_uri" must be Google\'s token endpoint https://oauth2.googleapis.com/token',
        ),
      });

      const list = runCli(['apps', 'list', '--account', accountId, '--json'], env);
      expect(list.json.apps.map((app: any) => app.id)).toEqual([appId]);
      expect(list.stdout).not.toContain('PRIVATE KEY');

      const renamed = runCli(
        ['apps', 'update', '--account', accountId, '--app', appId, '--name', 'Shop 2', '--remove-android', '--json'],
        env,
      );
      expect(renamed.json).toMatchObject({ name: 'Shop 2', android: null, ios: { keyId: key.keyId } });
      const paced = runCli(
        ['apps', 'update', '--account', accountId, '--app', appId, '--throttle', '5000', '--json'],
        env,
      );
      expect(paced.json).toMatchObject({ name: 'Shop 2', throttlePerMinute: 5000 });
      const unpaced = runCli(
        ['apps', 'update', '--account', accountId, '--app', appId, '--throttle', 'none', '--json'],
        env,
      );
      expect(unpaced.status, unpaced.stderr + unpaced.stdout).toBe(0);
      expect(unpaced.json.throttlePerMinute).toBeNull();

      const badKey = runCli(
        [
          'apps',
          'update',
          '--account',
          accountId,
          '--app',
          appId,
          '--apns-key-file',
          accountFile,
          '--apns-key-id',
          key.keyId,
          '--apns-team-id',
          key.teamId,
          '--apns-topic',
          'com.example.shop',
          '--json',
        ],
        env,
      );
      expect(badKey.status).not.toBe(0);
      expect(badKey.json.error).toMatchObject({
        code: 'validation_failed',
        message: expect.stringContaining('--apns-key-file'),
      });

      const refused = runCli(['apps', 'delete', '--account', accountId, '--app', appId, '--json'], env);
      expect(refused.json.error.code).toBe('conflict');
      const otherAccount = runCli(['accounts', 'create', '--name', 'Other', '--json'], env).json.id as string;
      expect(runCli(['apps', 'delete', '--account', otherAccount, '--app', appId, '--json'], env).json.error.code).toBe(
        'not_found',
      );
      const spare = runCli(['apps', 'create', '--account', accountId, '--name', 'Spare', '--json'], env);
      expect(runCli(['apps', 'delete', '--account', accountId, '--app', spare.json.id, '--json'], env).json).toEqual({
        id: spare.json.id,
        deleted: true,
      });
    },
  );
});
