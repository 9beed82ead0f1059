import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVapidKeyPair } from '../../../src/delivery/web-push/vapid-keys.ts';
import { markAppCredentialsFailing } from '../../../src/store/apps-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp, iosCredentials, secretsIn, send } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/apps/:id → 200', () => {
  it('renames, replaces iOS credentials (clearing a failing status) and removes Android ones', async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    await markAppCredentialsFailing(t.store.db, {
      appId: app.id,
      error: 'apns:InvalidProviderToken',
      now: t.clock.now(),
    });
    const ios = iosCredentials('com.example.renamed');
    const response = await send(t, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, {
      name: 'Renamed',
      ios,
      android: null,
    });
    const updated = expectSuccess(response, 200);
    expect(updated).toMatchObject({
      id: app.id,
      name: 'Renamed',
      ios: { keyId: ios.keyId, bundleId: 'com.example.renamed' },
      android: null,
      credentials: { status: 'ok', error: null },
    });
    expect(updated.web).toEqual(app.web);
    expect(secretsIn(response.payload)).toEqual([]);
  });

  it('sets and clears the throttle of sends to its channels, keeping the credentials', async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    expect(app.throttlePerMinute).toBeNull();
    const paced = expectSuccess(
      await send(t, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, { throttlePerMinute: 10_000 }),
      200,
    );
    expect({ ...paced, updatedAt: app.updatedAt }).toEqual({ ...app, throttlePerMinute: 10_000 });
    const cleared = expectSuccess(
      await send(t, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, { throttlePerMinute: null }),
      200,
    );
    expect(cleared.throttlePerMinute).toBeNull();
  });

  it('keeps the credentials when only the name changes', async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    const updated = expectSuccess(
      await send(t, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, { name: 'Only name' }),
      200,
    );
    expect({ ...updated, name: app.name, updatedAt: app.updatedAt }).toEqual(app);
  });

  it("changes only the VAPID subject when web names no key: the pair, and so every browser's subscription, stays", async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    const updated = expectSuccess(
      await send(t, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, {
        web: { subject: 'mailto:push@shop.example' },
      }),
      200,
    );
    expect(updated.web).toEqual({ vapidPublicKey: app.web.vapidPublicKey, subject: 'mailto:push@shop.example' });
  });

  it('replaces the VAPID pair with the one given', async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    const pair = generateVapidKeyPair();
    const updated = expectSuccess(
      await send(t, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, { web: pair }),
      200,
    );
    expect(updated.web).toEqual({ vapidPublicKey: pair.publicKey, subject: app.web.subject });
  });
});
