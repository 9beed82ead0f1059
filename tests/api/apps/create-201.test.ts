import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAppCredentials } from '../../../src/delivery/app-credentials.ts';
import { findApp } from '../../../src/store/apps-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { androidCredentials, iosCredentials, secretsIn } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/apps → 201', () => {
  it('stores the credentials sealed and answers fingerprints only', async () => {
    const account = await t.newAccount();
    const ios = iosCredentials('com.example.shop');
    const android = androidCredentials('shop-project');
    const response = await post(t.app, '/api/v1/apps', account.secretKey, { name: 'Shop', ios, android });
    const app = expectSuccess(response, 201);
    expect(app).toMatchObject({
      name: 'Shop',
      ios: { keyId: ios.keyId, teamId: ios.teamId, bundleId: 'com.example.shop' },
      android: { projectId: 'shop-project', clientEmail: android.serviceAccount.client_email },
      credentials: { status: 'ok', error: null, failedAt: null },
    });
    expect(app.id).toMatch(/^app_[0-9a-z]{26}$/);
    expect(app.web.vapidPublicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(secretsIn(response.body && JSON.stringify(response.body))).toEqual([]);

    const row = (await findApp(t.store.db, account.id, app.id))!;
    expect(row.apns_sealed_key).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
    const opened = openAppCredentials(t.secretKey, row);
    expect(opened.apns?.keyPem).toBe(ios.key);
    expect(opened.fcm?.serviceAccount).toEqual(android.serviceAccount);
  });

  it('accepts an app with web credentials only, and a service account given as text', async () => {
    const account = await t.newAccount();
    const webOnly = expectSuccess(
      await post(t.app, '/api/v1/apps', account.secretKey, {
        name: 'Site',
        web: { subject: 'mailto:ops@example.com' },
      }),
      201,
    );
    expect(webOnly).toMatchObject({ ios: null, android: null, web: { subject: 'mailto:ops@example.com' } });
    const text = JSON.stringify(androidCredentials('as-text').serviceAccount);
    const fromText = expectSuccess(
      await post(t.app, '/api/v1/apps', account.secretKey, { name: 'Droid', android: { serviceAccount: text } }),
      201,
    );
    expect(fromText.android.projectId).toBe('as-text');
  });
});
