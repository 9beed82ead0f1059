import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../apps/app-fixtures.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/web-push/public-key → 200', () => {
  it('answers the same 65-byte P-256 public key to a publishable key, a secret key and no key', async () => {
    const account = await t.newAccount();
    const answers = [];
    for (const key of [account.publishableKey, account.secretKey, null]) {
      const response = await get(t.app, '/api/v1/web-push/public-key', key);
      const data = expectSuccess(response, 200);
      expect(Object.keys(response.body)).toEqual(['success', 'data']);
      expect(Object.keys(data)).toEqual(['publicKey', 'appId', 'subjectWarning']);
      expect(data.appId).toBeNull();
      answers.push(data.publicKey);
    }
    expect(new Set(answers).size).toBe(1);
    const point = Buffer.from(answers[0], 'base64url');
    expect(answers[0]).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(point.length).toBe(65);
    expect(point[0]).toBe(0x04);
  });

  it("answers the stored pair's public key", async () => {
    const { body } = await get(t.app, '/api/v1/web-push/public-key', null);
    const row = await t.store.db.selectFrom('vapid_keys').selectAll().executeTakeFirstOrThrow();
    expect(row.public_key).toBe(body.data.publicKey);
  });
});

describe('GET /api/v1/web-push/public-key?channelCode= → 200: the key that channel is signed with', () => {
  it("answers a channel bound to an app with the app's own VAPID key, to its publishable key, its secret key and a key scoped to it", async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    expectSuccess(
      await post(t.app, '/api/v1/channels', account.secretKey, { code: 'shop', name: 'Shop', appId: app.id }),
      201,
    );
    const scoped = await account.key({ kind: 'publishable', channels: ['shop'] });
    const instance = expectSuccess(await get(t.app, '/api/v1/web-push/public-key', null), 200).publicKey;
    expect(app.web.vapidPublicKey).not.toBe(instance);
    for (const key of [account.publishableKey, account.secretKey, scoped.value]) {
      const data = expectSuccess(await get(t.app, '/api/v1/web-push/public-key?channelCode=shop', key), 200);
      expect(data).toEqual({ publicKey: app.web.vapidPublicKey, appId: app.id, subjectWarning: expect.any(String) });
    }
  });

  it("answers a channel on the built-in app (an account without apps) with the instance's key", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const instance = expectSuccess(await get(t.app, '/api/v1/web-push/public-key', null), 200);
    const data = expectSuccess(
      await get(t.app, '/api/v1/web-push/public-key?channelCode=news', account.publishableKey),
      200,
    );
    expect(data).toEqual(instance);
  });

  it('names no localhost warning for an app whose own subject Apple takes', async () => {
    const account = await t.newAccount();
    const created = await post(t.app, '/api/v1/apps', account.secretKey, {
      name: 'Web only',
      web: { subject: 'mailto:push@shop.example' },
    });
    const app = expectSuccess(created, 201);
    expectSuccess(
      await post(t.app, '/api/v1/channels', account.secretKey, { code: 'web', name: 'Web', appId: app.id }),
      201,
    );
    const data = expectSuccess(
      await get(t.app, '/api/v1/web-push/public-key?channelCode=web', account.publishableKey),
      200,
    );
    expect(data).toEqual({ publicKey: app.web.vapidPublicKey, appId: app.id, subjectWarning: null });
  });
});

describe('GET /api/v1/web-push/public-key with keys from configuration', () => {
  it('answers the configured public key', async () => {
    // A fixed pair in the format CLARION_VAPID_* take (what `npx web-push generate-vapid-keys` prints).
    const configured = await startTestApp({
      vapidPublicKey: 'BHVU-43Er6qxYFOy-hfmQ_wUMKBaH-qkqp7-pEAFfJ3P4XAxJ6T9HQrFcrlYqM0d9beaxPWKEKXLojsrXM-Ed5Q',
      vapidPrivateKey: '-GnWmMBEiyYeWVVX_mRv95HjQdkJpe8d1VXt5Ng1JiM',
    });
    try {
      const data = expectSuccess(await get(configured.app, '/api/v1/web-push/public-key', null), 200);
      expect(data.publicKey).toBe(
        'BHVU-43Er6qxYFOy-hfmQ_wUMKBaH-qkqp7-pEAFfJ3P4XAxJ6T9HQrFcrlYqM0d9beaxPWKEKXLojsrXM-Ed5Q',
      );
    } finally {
      await configured.close();
    }
  });
});

describe('GET /api/v1/web-push/public-key: what Safari will make of the subject', () => {
  it('warns when the subject is derived from a localhost base URL, which Apple refuses', async () => {
    const data = expectSuccess(await get(t.app, '/api/v1/web-push/public-key', null), 200);
    expect(t.config.baseUrl).toMatch(/^http:\/\/localhost/);
    for (const said of ['mailto:webpush@localhost', 'Safari', 'CLARION_VAPID_SUBJECT'])
      expect(data.subjectWarning).toContain(said);
  });

  it('says nothing for a subject Apple takes', async () => {
    const public_ = await startTestApp({ baseUrl: 'https://push.example.com' });
    try {
      expect(expectSuccess(await get(public_.app, '/api/v1/web-push/public-key', null), 200).subjectWarning).toBeNull();
    } finally {
      await public_.close();
    }
  });
});
