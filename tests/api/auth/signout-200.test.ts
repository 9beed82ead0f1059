import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signIn, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/signout → 200', () => {
  it('ends the session at once: the cookie is cleared, and refused from the next request on', async () => {
    const user = await signUp(t);
    const response = await sessionCall(t, 'POST', '/api/v1/auth/signout', user);
    expect(expectSuccess(response, 200)).toEqual({ signup: 'open', session: null });
    expect(response.headers['set-cookie']).toBe('clarion_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax');
    expect(await t.store.db.selectFrom('sessions').selectAll().where('user_id', '=', user.userId).execute()).toEqual(
      [],
    );

    // A copy of the old cookie (another tab, or a thief) gets nothing.
    expect(expectError(await sessionCall(t, 'GET', '/api/v1/channels', user), 'unauthorized').message).toMatch(
      /session has ended/,
    );
    expect((await sessionCall(t, 'GET', '/api/v1/auth/session', user)).body.data.session).toBeNull();
  });

  it('ends only this session, not the same user’s other ones', async () => {
    const user = await signUp(t);
    const other = await signIn(t, user.email, user.password);
    expect((await sessionCall(t, 'POST', '/api/v1/auth/signout', user)).statusCode).toBe(200);
    expect((await sessionCall(t, 'GET', '/api/v1/channels', other)).statusCode).toBe(200);
  });
});
