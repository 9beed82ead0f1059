import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApnsSigningKey } from '../../../tools/fakes/index.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { fakeProviderConfig, startFakeProviders, type FakeProviders } from '../../delivery/engine/delivery-harness.ts';

let t: TestApp;
let fakes: FakeProviders;
beforeAll(async () => {
  fakes = await startFakeProviders();
  // Private addresses allowed: the uploaded service account names the fake token endpoint on loopback.
  t = await startTestApp({ ...fakeProviderConfig(fakes.providerEnv), allowPrivateAddresses: true });
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

describe('POST /api/v1/apps/:id/test → 200', () => {
  it('→ 200: reports that APNs and FCM accept good credentials, and what APNs said about a revoked key', async () => {
    const account = await t.newAccount();
    const good = createApnsSigningKey();
    const revoked = createApnsSigningKey();
    fakes.apns.addKey({ ...good, topics: ['com.example.good'] });
    const serviceAccount = fakes.fcm.createServiceAccount('checked-project');
    const created = await post(t.app, '/api/v1/apps', account.secretKey, {
      name: 'Good',
      ios: { key: good.privateKeyPem, keyId: good.keyId, teamId: good.teamId, bundleId: 'com.example.good' },
      android: { serviceAccount: serviceAccount.json },
    });
    const checked = expectSuccess(
      await post(t.app, `/api/v1/apps/${created.body.data.id}/test`, account.secretKey),
      200,
    );
    expect(checked).toMatchObject({ ios: { ok: true }, android: { ok: true }, web: { ok: true } });
    expect(fakes.apns.requests.at(-1)?.jwt).toMatchObject({ kid: good.keyId, iss: good.teamId });

    const bad = await post(t.app, '/api/v1/apps', account.secretKey, {
      name: 'Revoked',
      ios: { key: revoked.privateKeyPem, keyId: revoked.keyId, teamId: revoked.teamId, bundleId: 'com.example.good' },
    });
    const refused = expectSuccess(await post(t.app, `/api/v1/apps/${bad.body.data.id}/test`, account.secretKey), 200);
    expect(refused).toMatchObject({ ios: { ok: false, providerAnswer: 'apns:InvalidProviderToken' }, android: null });
    // What to fix is the app's upload, not the operator's CLARION_APNS_* variables (those are the built-in app's).
    expect(refused.ios.message).toContain('Upload the .p8 key again');
    expect(refused.ios.message).not.toContain('CLARION_');
  });
});
