import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createApnsSigningKey,
  createFcmServiceAccount,
  ensureFakeTls,
  extraCaCertsWith,
  startFakeApns,
  startFakeFcm,
  writeCredentialFile,
} from '../../tools/fakes/index.ts';
import { closeAfterTest } from './h2-test-client.ts';
import { apnsProviderToken, fcmAssertion } from './jwt-signers.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'clarion-fake-tls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('fake TLS', () => {
  it('creates a CA and a localhost/127.0.0.1/::1 certificate once, then reuses them', () => {
    const dir = join(scratch, 'reuse');
    const first = ensureFakeTls(dir);
    const second = ensureFakeTls(dir);
    expect(second).toEqual(first);
    expect(readFileSync(first.caCertPath, 'utf8')).toBe(first.caPem);

    const ca = new X509Certificate(first.caPem);
    const leaf = new X509Certificate(first.certPem);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
  });

  it('replaces a set that is no longer valid', () => {
    const dir = join(scratch, 'corrupt');
    const first = ensureFakeTls(dir);
    writeFileSync(join(dir, 'cert.pem'), 'garbage');
    const second = ensureFakeTls(dir);
    expect(second.caPem).not.toBe(first.caPem);
    expect(new X509Certificate(second.certPem).verify(new X509Certificate(second.caPem).publicKey)).toBe(true);
  });

  it('gives every racing process the same set', async () => {
    const dir = join(scratch, 'race');
    const script = `import { ensureFakeTls } from ${JSON.stringify(new URL('../../tools/fakes/fake-tls.ts', import.meta.url).href)};
      process.stdout.write(ensureFakeTls(${JSON.stringify(dir)}).caPem);`;
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script]),
      ),
    );
    const cas = new Set(outputs.map((output) => output.stdout));
    expect(cas.size).toBe(1);
    expect(ensureFakeTls(dir).caPem).toBe([...cas][0]);
  });

  it('is trusted by a fresh Node process through NODE_EXTRA_CA_CERTS alone (fetch and node:http2)', async () => {
    const key = createApnsSigningKey();
    const apns = await startFakeApns({ keys: [key] });
    closeAfterTest(() => apns.close());
    const fcm = await startFakeFcm();
    closeAfterTest(() => fcm.close());
    const account = fcm.createServiceAccount('clarion-child');
    const keyFile = writeCredentialFile(join(scratch, 'AuthKey.p8'), key);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);

    // The child uses default trust only: no `ca` option, no NODE_TLS_REJECT_UNAUTHORIZED.
    const child = `
      const http2 = require('node:http2');
      (async () => {
        const token = await fetch(process.env.TOKEN_URI, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: process.env.ASSERTION }) });
        const session = http2.connect(process.env.APNS_URL);
        const status = await new Promise((resolve, reject) => {
          const stream = session.request({ ':method': 'POST', ':path': '/3/device/${'ab'.repeat(32)}', authorization: 'bearer ' + process.env.JWT, 'apns-topic': 'com.example.child' });
          stream.on('response', (headers) => resolve(headers[':status']));
          stream.on('error', reject);
          stream.end('{"aps":{"alert":"hi"}}');
        });
        session.close();
        console.log(JSON.stringify({ fcm: token.status, apns: status }));
      })().catch((error) => { console.error(error); process.exit(1); });`;
    const { caCertPath } = ensureFakeTls();
    const { NODE_TLS_REJECT_UNAUTHORIZED: _ignored, ...inherited } = process.env;
    const env = {
      ...inherited,
      NODE_EXTRA_CA_CERTS: caCertPath,
      TOKEN_URI: account.json.token_uri,
      ASSERTION: await fcmAssertion(account),
      APNS_URL: apns.url,
      JWT: await apnsProviderToken(key),
    };
    const { stdout } = await run(process.execPath, ['-e', child], { env });
    expect(JSON.parse(stdout)).toEqual({ fcm: 200, apns: 200 });

    // And without the variable the same child is refused: the trust really comes from NODE_EXTRA_CA_CERTS.
    const { NODE_EXTRA_CA_CERTS: _dropped, ...untrusted } = env;
    await expect(run(process.execPath, ['-e', child], { env: untrusted })).rejects.toThrow(
      /self[- ]signed|unable to verify|UNABLE_TO_GET_ISSUER/i,
    );
  });

  it('adds its CA to what NODE_EXTRA_CA_CERTS trusted already, in one bundle, rather than replacing it', () => {
    const tls = ensureFakeTls(join(scratch, 'bundle'));
    const machineCa = ensureFakeTls(join(scratch, 'machine-ca')).caPem;
    const current = join(scratch, 'machine-bundle.pem');
    writeFileSync(current, machineCa);
    const bundlePath = extraCaCertsWith(tls, current);
    expect(bundlePath).not.toBe(tls.caCertPath);
    expect(readFileSync(bundlePath, 'utf8')).toBe(`${machineCa.trimEnd()}\n${tls.caPem}`);
    expect(extraCaCertsWith(tls, current)).toBe(bundlePath);
    // Nothing trusted before, the fakes' CA itself, or a file that is gone: the CA alone.
    expect(extraCaCertsWith(tls, undefined)).toBe(tls.caCertPath);
    expect(extraCaCertsWith(tls, tls.caCertPath)).toBe(tls.caCertPath);
    expect(extraCaCertsWith(tls, join(scratch, 'missing.pem'))).toBe(tls.caCertPath);
  });

  it('writes a service account JSON shaped like Google’s', () => {
    const account = createFcmServiceAccount({ projectId: 'clarion-json', tokenUri: 'https://127.0.0.1:1/token' });
    const file = writeCredentialFile(join(scratch, 'service-account.json'), account);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    expect(json).toMatchObject({
      type: 'service_account',
      project_id: 'clarion-json',
      token_uri: 'https://127.0.0.1:1/token',
      client_email: expect.stringMatching(/@clarion-json\.iam\.gserviceaccount\.com$/),
    });
    expect(json.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(json.private_key_id).toMatch(/^[0-9a-f]{40}$/);
  });
});
