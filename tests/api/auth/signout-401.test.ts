import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/signout → 401 unauthorized', () => {
  it('answers unauthorized without a session, and to a session that has already ended', async () => {
    expect(expectError(await sessionCall(t, 'POST', '/api/v1/auth/signout', null), 'unauthorized').message).toMatch(
      /Sign in/,
    );
    const user = await signUp(t);
    await sessionCall(t, 'POST', '/api/v1/auth/signout', user);
    const again = await sessionCall(t, 'POST', '/api/v1/auth/signout', user);
    expectError(again, 'unauthorized');
    expect(again.headers['set-cookie']).toMatch(/^clarion_session=; .*Max-Age=0/);
  });
});
