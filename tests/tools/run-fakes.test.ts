import { type ChildProcess, spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configOptions } from '../../src/config/config-options.ts';
import type { ServiceAccountJson } from '../../tools/fakes/index.ts';
import { closeAfterTest, h2Request, openSession, postForm } from './h2-test-client.ts';
import { apnsProviderToken, fcmAssertion } from './jwt-signers.ts';
import { waitFor } from '../harness/wait-for.ts';

const scratch = mkdtempSync(join(tmpdir(), 'clarion-run-fakes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const EXPECTED = [
  'CLARION_APNS_URL',
  'CLARION_APNS_KEY_FILE',
  'CLARION_APNS_KEY_ID',
  'CLARION_APNS_TEAM_ID',
  'CLARION_APNS_TOPIC',
  'CLARION_FCM_URL',
  'CLARION_FCM_SERVICE_ACCOUNT_FILE',
  'CLARION_ALLOW_PRIVATE_ADDRESSES',
  'NODE_EXTRA_CA_CERTS',
];

/** Starts the launcher on free ports; resolves with the exported variables once all are printed. */
async function launch(
  dir: string,
): Promise<{ child: ChildProcess; env: Record<string, string>; stdout: () => string; stderr: () => string }> {
  const script = new URL('../../tools/run-fakes.ts', import.meta.url).pathname;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      script,
      '--apns-port',
      '0',
      '--apns-sandbox-port',
      '0',
      '--fcm-port',
      '0',
      '--web-push-port',
      '0',
      '--dir',
      dir,
      '--quiet',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  closeAfterTest(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = Object.fromEntries(
        [...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map((match) => [match[1], match[2]]),
      );
      if (EXPECTED.every((name) => name in found)) resolve(found as Record<string, string>);
    });
    child.once('exit', (code) => reject(new Error(`launcher exited with ${code}: ${stderr}`)));
  });
  return { child, env, stdout: () => stdout, stderr: () => stderr };
}

describe('tools/run-fakes.ts', () => {
  it('prints the environment for Clarion, serves both fakes with it, and stops on SIGTERM', async () => {
    const dir = join(scratch, 'fakes');
    const { child, env, stdout, stderr } = await launch(dir);
    expect(readFileSync(join(dir, 'env.sh'), 'utf8')).toContain(`export CLARION_APNS_URL=${env.CLARION_APNS_URL}`);
    // Only what Clarion (or Node, for the fakes' CA) reads: every exported name is a declared option.
    const options = new Set<string>(configOptions.map((option) => option.env));
    expect(Object.keys(env).filter((name) => name !== 'NODE_EXTRA_CA_CERTS' && !options.has(name))).toEqual([]);

    // APNs with the printed key file, ids and topic.
    const privateKeyPem = readFileSync(env.CLARION_APNS_KEY_FILE ?? '', 'utf8');
    const key = {
      keyId: env.CLARION_APNS_KEY_ID ?? '',
      teamId: env.CLARION_APNS_TEAM_ID ?? '',
      privateKeyPem,
      publicKey: createPublicKey(createPrivateKey(privateKeyPem)),
    };
    const session = await openSession(env.CLARION_APNS_URL ?? '');
    const pushed = await h2Request(
      session,
      {
        ':path': `/3/device/${'cd'.repeat(32)}`,
        authorization: `bearer ${await apnsProviderToken(key)}`,
        'apns-topic': env.CLARION_APNS_TOPIC ?? '',
        'apns-push-type': 'alert',
      },
      '{"aps":{"alert":"hi"}}',
    );
    expect(pushed.status).toBe(200);

    // FCM with the printed service account, whose token_uri points at the fake.
    const json = JSON.parse(readFileSync(env.CLARION_FCM_SERVICE_ACCOUNT_FILE ?? '', 'utf8')) as ServiceAccountJson;
    expect(json.token_uri).toBe(`${env.CLARION_FCM_URL}/token`);
    const account = { json, publicKey: createPublicKey(createPrivateKey(json.private_key)) };
    const token = await postForm(json.token_uri, {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await fcmAssertion(account),
    });
    expect(token.status).toBe(200);

    // Web Push: a subscription made over HTTP, pointing at the fake, which Clarion may reach on loopback.
    expect(env.CLARION_ALLOW_PRIVATE_ADDRESSES).toBe('true');
    // Its address is printed as a comment beside the exports (where a script finds it), and in the log line.
    const webPushUrl = /^# fake Web Push service: (https:\/\/\S+) /m.exec(stdout())?.[1];
    expect(webPushUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(
      () => stderr().includes(`fake Web Push on ${webPushUrl} `),
      5_000,
      'the launcher to name the Web Push fake',
    );
    const subscribed = await fetch(`${webPushUrl!}/subscriptions`, { method: 'POST', body: '{}' });
    expect(subscribed.status).toBe(201);
    const subscription = (await subscribed.json()) as { endpoint: string; keys: { p256dh: string; auth: string } };
    expect(subscription.endpoint.startsWith(`${webPushUrl!}/push/`)).toBe(true);
    expect(Buffer.from(subscription.keys.p256dh, 'base64url').length).toBe(65);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    // A restart reuses the same credentials, so Clarion's configuration stays valid.
    const again = await launch(dir);
    expect(again.env.CLARION_APNS_KEY_ID).toBe(env.CLARION_APNS_KEY_ID);
    expect(JSON.parse(readFileSync(again.env.CLARION_FCM_SERVICE_ACCOUNT_FILE ?? '', 'utf8')).private_key).toBe(
      json.private_key,
    );
  });
});
