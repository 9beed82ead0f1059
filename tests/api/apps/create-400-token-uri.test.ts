import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectSuccess, expectValidation } from '../../harness/api-expect.ts';
import { signUp, sessionCall } from '../../harness/dashboard-session.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { androidCredentials, createTestApp, send } from './app-fixtures.ts';

/**
 * An uploaded service account's token_uri is where the server would post its OAuth request: only Google's endpoint
 * is accepted (src/delivery/fcm/fcm-token-uri.ts), unless the operator set CLARION_ALLOW_PRIVATE_ADDRESSES, and even
 * then only https.
 */
let strict: TestApp;
let allowing: TestApp;
beforeAll(async () => {
  strict = await startTestApp({ allowPrivateAddresses: false, allowPrivateWebhooks: false });
  allowing = await startTestApp({ allowPrivateAddresses: true });
});
afterAll(async () => {
  await strict?.close();
  await allowing?.close();
});

const withTokenUri = (tokenUri: string) => ({
  serviceAccount: { ...androidCredentials().serviceAccount, token_uri: tokenUri },
});

const REFUSED = [
  'http://127.0.0.1:8080/token',
  'https://127.0.0.1/token',
  'http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token',
  'http://oauth2.googleapis.com/token',
  'https://oauth2.googleapis.com.attacker.example/token',
  'https://oauth2.googleapis.com:8443/token',
  'https://user@oauth2.googleapis.com/token',
  'https://oauth2.googleapis.com/token?next=http://10.0.0.1/',
  'https://accounts.google.com/o/oauth2/token',
];

describe("POST /api/v1/apps → 400 validation_failed for a service account whose token_uri is not Google's", () => {
  it.each(REFUSED)("refuses token_uri %s, naming Google's endpoint, and stores nothing", async (tokenUri) => {
    const account = await strict.newAccount();
    const before = await accountState(strict, account.id);
    const [problem] = expectValidation(
      await post(strict.app, '/api/v1/apps', account.secretKey, { name: 'A', android: withTokenUri(tokenUri) }),
      ['android.serviceAccount'],
    );
    expect(problem!.message).toContain(
      '"token_uri" must be Google\'s token endpoint https://oauth2.googleapis.com/token',
    );
    expect(await accountState(strict, account.id)).toEqual(before);
  });

  it('refuses it on PATCH too, and the app keeps its service account', async () => {
    const account = await strict.newAccount();
    const app = await createTestApp(strict, account.secretKey);
    expectValidation(
      await send(strict, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, {
        android: withTokenUri('http://127.0.0.1:6379/'),
      }),
      ['android.serviceAccount'],
    );
    expect((await get(strict.app, `/api/v1/apps/${app.id}`, account.secretKey)).body.data).toEqual(app);
  });

  it('takes the same refusal from a dashboard session', async () => {
    const session = await signUp(strict);
    const before = await accountState(strict, session.accountId);
    // The Apps page sends the file's text as it was read (web/js/pages/apps.js).
    const body = {
      name: 'A',
      android: { serviceAccount: JSON.stringify(withTokenUri('http://10.1.2.3/token').serviceAccount) },
    };
    expectValidation(await sessionCall(strict, 'POST', '/api/v1/apps', session, { body }), ['android.serviceAccount']);
    expect(await accountState(strict, session.accountId)).toEqual(before);
  });

  it("accepts Google's endpoint", async () => {
    const account = await strict.newAccount();
    expectSuccess(
      await post(strict.app, '/api/v1/apps', account.secretKey, {
        name: 'A',
        android: withTokenUri('https://oauth2.googleapis.com/token'),
      }),
      201,
    );
  });
});

describe('with CLARION_ALLOW_PRIVATE_ADDRESSES=true', () => {
  it('accepts any https token_uri (fakes on loopback) but still refuses plain http', async () => {
    const account = await allowing.newAccount();
    expectSuccess(
      await post(allowing.app, '/api/v1/apps', account.secretKey, {
        name: 'Fake',
        android: withTokenUri('https://127.0.0.1:8443/token'),
      }),
      201,
    );
    const before = await accountState(allowing, account.id);
    const [problem] = expectValidation(
      await post(allowing.app, '/api/v1/apps', account.secretKey, {
        name: 'A',
        android: withTokenUri('http://127.0.0.1:8080/token'),
      }),
      ['android.serviceAccount'],
    );
    expect(problem!.message).toContain('"token_uri" must be an https URL');
    expect(await accountState(allowing, account.id)).toEqual(before);
  });
});
