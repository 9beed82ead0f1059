import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { blankContent } from '../../../src/domain/notification-content.ts';
import type { PushContent } from '../../../src/delivery/push-content.ts';
import { type FcmClient, createFcmClient } from '../../../src/delivery/fcm/fcm-client.ts';
import { ManualClock } from '../../../src/domain/clock.ts';
import {
  type FakeFcm,
  type FcmServiceAccount,
  createFcmServiceAccount,
  ensureFakeTls,
  startFakeFcm,
  writeCredentialFile,
} from '../../../tools/fakes/index.ts';
import { waitFor } from '../../harness/wait-for.ts';

const PROJECT = 'clarion-test';
const MINUTE = 60_000;
const token = (n: number) => `fcm-token-${n}:APA91b${'x'.repeat(40)}`;

const content: PushContent = {
  ...blankContent,
  notificationId: 'ntf_01jf3z5y8k9q2w4e6r8t0y2u4i',
  title: 'Gate change',
  body: 'LH 454 boards at B12',
  url: 'https://example.com/f/454',
  data: { flight: 'LH454' },
  imageUrl: 'https://example.com/i.png',
  sound: 'default',
  ttlSeconds: 600,
};

let fake: FakeFcm;
let fakeClock: ManualClock;
let account: FcmServiceAccount;
const clients: FcmClient[] = [];

function client(overrides: Partial<Parameters<typeof createFcmClient>[0]> = {}): {
  fcm: FcmClient;
  clock: ManualClock;
} {
  const clock = new ManualClock(fakeClock.now());
  // No `ca`: vitest.config.ts sets NODE_EXTRA_CA_CERTS, so global fetch and node:http2 trust the fake like production.
  // tokenUri 'https': the fake's token endpoint is on loopback, as CLARION_ALLOW_PRIVATE_ADDRESSES allows.
  const fcm = createFcmClient({ url: fake.url, serviceAccount: account.json, tokenUri: 'https', clock, ...overrides });
  clients.push(fcm);
  return { fcm, clock };
}

beforeAll(async () => {
  fakeClock = new ManualClock(Date.now());
  fake = await startFakeFcm({ clock: fakeClock });
  account = fake.createServiceAccount(PROJECT);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((fcm) => fcm.close()));
  fake.reset();
});

afterAll(async () => {
  await fake.close();
});

describe('FCM client against the fake FCM', () => {
  it('exchanges an RS256 assertion and sends the exact v1 message over HTTP/2', async () => {
    const { fcm, clock } = client();
    expect(await fcm.send(token(1), content)).toEqual({ kind: 'delivered' });
    const [exchange] = await fake.waitForTokenRequests(1);
    const iat = Math.floor(clock.now() / 1000);
    expect(exchange).toMatchObject({
      method: 'POST',
      grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      status: 200,
      error: null,
    });
    expect(exchange?.claims).toEqual({
      kid: account.json.private_key_id,
      iss: account.json.client_email,
      aud: account.json.token_uri,
      scope: 'https://www.googleapis.com/auth/firebase.messaging',
      iat,
      exp: iat + 3600,
    });
    const [request] = await fake.waitForRequests(1);
    expect(request).toMatchObject({
      httpVersion: '2.0',
      method: 'POST',
      path: `/v1/projects/${PROJECT}/messages:send`,
      projectId: PROJECT,
      status: 200,
    });
    expect(request?.headers.authorization).toBe(`Bearer ${exchange?.accessToken}`);
    expect(request?.message).toEqual({
      token: token(1),
      notification: { title: 'Gate change', body: 'LH 454 boards at B12', image: 'https://example.com/i.png' },
      data: { flight: 'LH454', url: 'https://example.com/f/454' },
      android: { priority: 'HIGH', ttl: '600s', notification: { tag: content.notificationId, sound: 'default' } },
    });
  });

  it('uses one OAuth exchange and one connection for many concurrent sends', async () => {
    const { fcm } = client();
    fake.setLatency(5);
    const outcomes = await Promise.all(Array.from({ length: 300 }, (_, i) => fcm.send(token(i), content)));
    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    expect(fake.tokenRequests).toHaveLength(1);
    expect(new Set(fake.requests.map((request) => request.connectionId)).size).toBe(1);
    expect(fcm.stats()).toMatchObject({ sessions: 1, activeStreams: 0, queued: 0 });
  });

  it('refreshes the access token 5 minutes before it expires', async () => {
    const { fcm, clock } = client();
    await fcm.send(token(1), content);
    clock.advance(54 * MINUTE);
    fakeClock.advance(54 * MINUTE);
    await fcm.send(token(1), content);
    expect(fake.tokenRequests).toHaveLength(1);
    clock.advance(MINUTE);
    fakeClock.advance(MINUTE);
    expect(await fcm.send(token(1), content)).toEqual({ kind: 'delivered' });
    expect(fake.tokenRequests).toHaveLength(2);
    const [first, second] = fake.requests.slice(-2);
    expect(second?.accessToken).not.toBe(first?.accessToken);
  });

  it('refreshes once and retries when FCM answers 401 for a cached token', async () => {
    const { fcm } = client();
    await fcm.send(token(1), content);
    fake.revokeAccessTokens();
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => fcm.send(token(2), content)));
    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    expect(fake.tokenRequests).toHaveLength(2);
  });

  it('is fatal, naming the service-account file, when Google refuses the credentials', async () => {
    const stranger = createFcmServiceAccount({ projectId: PROJECT, tokenUri: fake.tokenUri });
    const { fcm } = client({ serviceAccount: stranger.json });
    const outcome = await fcm.send(token(1), content);
    expect(outcome).toMatchObject({ kind: 'fatal', reason: 'fcm:token_exchange_refused' });
    expect(outcome.kind === 'fatal' && outcome.fix).toMatch(/invalid_grant.*CLARION_FCM_SERVICE_ACCOUNT_FILE/s);
    expect(fake.requests).toHaveLength(0);
  });

  it('is fatal when the service account belongs to another project than the URL names', async () => {
    const other = fake.createServiceAccount('other-project');
    const { fcm } = client({ serviceAccount: { ...other.json, project_id: PROJECT } });
    const outcome = await fcm.send(token(1), content);
    expect(outcome).toMatchObject({ kind: 'fatal', reason: 'fcm:PERMISSION_DENIED' });
    expect(outcome.kind === 'fatal' && outcome.fix).toMatch(/CLARION_FCM_SERVICE_ACCOUNT_FILE/);
  });

  it.each([
    ['UNREGISTERED', { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'UNREGISTERED' }],
    ['INVALID_ARGUMENT', { kind: 'token_dead', reason: 'token_invalid', providerReason: 'INVALID_ARGUMENT' }],
    ['SENDER_ID_MISMATCH', { kind: 'token_dead', reason: 'token_invalid', providerReason: 'SENDER_ID_MISMATCH' }],
    ['THIRD_PARTY_AUTH_ERROR', { kind: 'fatal', reason: 'fcm:THIRD_PARTY_AUTH_ERROR' }],
    ['INTERNAL', { kind: 'retry', reason: 'fcm:INTERNAL', retryAfterMs: 10_000 }],
  ] as const)('maps %s per token', async (errorCode, expected) => {
    const { fcm } = client();
    fake.setTokenOutcome(token(3), { errorCode });
    expect(await fcm.send(token(3), content)).toMatchObject(expected);
  });

  it.each([
    ['QUOTA_EXCEEDED', 90, 90_000],
    ['UNAVAILABLE', 20, 20_000],
  ] as const)(
    'maps %s with Retry-After %i s to retry after %i ms',
    async (errorCode, retryAfterSeconds, retryAfterMs) => {
      const { fcm } = client();
      fake.failNext(1, { errorCode, retryAfterSeconds });
      expect(await fcm.send(token(4), content)).toEqual({ kind: 'retry', reason: `fcm:${errorCode}`, retryAfterMs });
    },
  );

  it('rejects a message FCM refuses as malformed, without touching the token', async () => {
    const { fcm } = client();
    const outcome = await fcm.sendData(token(5), { count: 12 as unknown as string });
    expect(outcome).toEqual({ kind: 'rejected', reason: 'fcm:INVALID_ARGUMENT' });
  });

  it('sends data-only messages', async () => {
    const { fcm, clock } = client();
    expect(await fcm.sendData(token(6), { progress: '0.4' }, { expiresAt: clock.now() + 60_000 })).toEqual({
      kind: 'delivered',
    });
    const [request] = await fake.waitForRequests(1);
    expect(request?.message).toEqual({
      token: token(6),
      data: { progress: '0.4' },
      android: { priority: 'HIGH', ttl: '60s' },
    });
  });

  it('reconnects after GOAWAY', async () => {
    const { fcm } = client();
    await fcm.send(token(7), content);
    fake.goAway();
    expect(await fcm.send(token(7), content)).toEqual({ kind: 'delivered' });
    const [first, second] = fake.requests;
    expect(second?.connectionId).not.toBe(first?.connectionId);
  });

  it('reads the service account from CLARION_FCM_SERVICE_ACCOUNT_FILE and trusts an explicit `ca`', async () => {
    const file = writeCredentialFile(
      join(mkdtempSync(join(tmpdir(), 'clarion-fcm-')), 'service-account.json'),
      account,
    );
    const { fcm } = client({ serviceAccount: undefined, serviceAccountFile: file, ca: ensureFakeTls().caPem });
    expect(await fcm.send(token(8), content)).toEqual({ kind: 'delivered' });
    expect(fake.tokenRequests[0]?.httpVersion).toBe('1.1');
  });

  it('is fatal when token_uri presents a certificate that does not verify', async () => {
    const { fcm } = client({ ca: rootCertificates[0] });
    const outcome = await fcm.send(token(10), content);
    expect(outcome).toMatchObject({ kind: 'fatal', reason: 'fcm:token_exchange_refused' });
    expect(outcome.kind === 'fatal' && outcome.fix).toMatch(/TLS certificate of token_uri/);
  });

  it('retries later when token_uri cannot be reached', async () => {
    const { fcm } = client({ serviceAccount: { ...account.json, token_uri: 'https://127.0.0.1:1/token' } });
    expect(await fcm.send(token(11), content)).toEqual({
      kind: 'retry',
      reason: 'fcm:token_exchange_failed',
      retryAfterMs: null,
    });
  });

  it("fails every push, sending nothing, when the service account's token_uri is not one its policy allows", async () => {
    const { fcm } = client({ tokenUri: 'google' });
    for (const outcome of [await fcm.send(token(12), content), await fcm.sendData(token(12), { progress: '0.5' })]) {
      expect(outcome).toMatchObject({
        kind: 'fatal',
        reason: 'fcm:token_uri_refused',
        fix: expect.stringContaining('https://oauth2.googleapis.com/token'),
      });
    }
    expect(fake.tokenRequests).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  it('refuses an unusable service-account file when the client is created', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clarion-fcm-'));
    writeFileSync(join(dir, 'bad.json'), '{"type":"service_account"}');
    expect(() =>
      createFcmClient({ url: fake.url, serviceAccountFile: join(dir, 'bad.json'), clock: fakeClock }),
    ).toThrow(/CLARION_FCM_SERVICE_ACCOUNT_FILE.*"token_uri" is missing/);
    expect(() =>
      createFcmClient({ url: fake.url, serviceAccountFile: join(dir, 'none.json'), clock: fakeClock }),
    ).toThrow(/CLARION_FCM_SERVICE_ACCOUNT_FILE: cannot read/);
  });

  it('closes its connection on close()', async () => {
    const { fcm } = client();
    await fcm.send(token(9), content);
    await fcm.close();
    await waitFor(() => fcm.stats().sessions === 0, 10_000, 'the session is gone');
    expect(await fcm.send(token(9), content)).toEqual({ kind: 'retry', reason: 'fcm:closed', retryAfterMs: null });
  });
});
