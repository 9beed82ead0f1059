import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { fakeProviderConfig, startFakeProviders, type FakeProviders } from '../../delivery/engine/delivery-harness.ts';
import { storeAppWithTokenUri } from './app-fixtures.ts';

/**
 * "Test credentials" of an app whose stored service account names a token_uri other than Google's: the check answers
 * what is wrong without sending the token request anywhere (src/delivery/fcm/fcm-token-uri.ts).
 */
let t: TestApp;
let fakes: FakeProviders;
let listener: Server;
const connections: Socket[] = [];
beforeAll(async () => {
  fakes = await startFakeProviders();
  t = await startTestApp({
    ...fakeProviderConfig(fakes.providerEnv),
    allowPrivateAddresses: false,
    allowPrivateWebhooks: false,
  });
  // An internal service a tenant would like to reach: it counts every connection made to it.
  listener = createServer((socket) => {
    connections.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
  await new Promise((resolve) => listener?.close(resolve));
});

describe("POST /api/v1/apps/:id/test → 200 for a stored service account whose token_uri is not Google's", () => {
  it.each([
    ['the fake token endpoint on loopback (https)', () => fakes.fcm.tokenUri],
    ['an internal port over https', () => `https://127.0.0.1:${(listener.address() as { port: number }).port}/token`],
    [
      'an internal port over plain http',
      () => `http://127.0.0.1:${(listener.address() as { port: number }).port}/token`,
    ],
  ])('reports %s as refused and sends nothing', async (_name, tokenUri) => {
    const account = await t.newAccount();
    const serviceAccount = fakes.fcm.createServiceAccount('stored-project');
    const appId = await storeAppWithTokenUri(t, account.id, serviceAccount.json, tokenUri());
    const tokenRequestsBefore = fakes.fcm.tokenRequests.length;
    const connectionsBefore = connections.length;
    const checked = expectSuccess(await post(t.app, `/api/v1/apps/${appId}/test`, account.secretKey), 200);
    expect(checked.android).toEqual({
      ok: false,
      providerAnswer: 'fcm:token_uri_refused',
      message: expect.stringContaining('https://oauth2.googleapis.com/token'),
    });
    expect(fakes.fcm.tokenRequests.length).toBe(tokenRequestsBefore);
    expect(connections.length).toBe(connectionsBefore);
  });
});
