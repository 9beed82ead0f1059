import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/signout → 403', () => {
  it('refuses a sign-out without the CSRF token (another site cannot sign the user out), and the session lives on', async () => {
    const user = await signUp(t);
    expectError(await sessionCall(t, 'POST', '/api/v1/auth/signout', user, { csrf: null }), 'csrf_failed');
    expect((await sessionCall(t, 'GET', '/api/v1/channels', user)).statusCode).toBe(200);
  });

  it('is not for API keys', async () => {
    const account = await t.newAccount();
    expectError(await post(t.app, '/api/v1/auth/signout', account.secretKey), 'forbidden');
  });
});
