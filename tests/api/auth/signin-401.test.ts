import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { randomEmail, sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { emailHashOf } from '../../../src/http/signin-rate-limit.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const signin = (email: string, password: string) =>
  sessionCall(t, 'POST', '/api/v1/auth/signin', null, { body: { email, password } });

describe('POST /api/v1/auth/signin → 401 unauthorized', () => {
  it('gives the same answer for a wrong password and an unknown email, sets no cookie, and counts the failure', async () => {
    const user = await signUp(t);
    const wrong = await signin(user.email, 'not the password');
    const unknown = await signin(randomEmail(), 'not the password');
    const messages = [expectError(wrong, 'unauthorized').message, expectError(unknown, 'unauthorized').message];
    expect(messages).toEqual(['Wrong email or password.', 'Wrong email or password.']);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const failures = await t.store.db
      .selectFrom('signin_attempts')
      .selectAll()
      .where('email_hash', '=', emailHashOf(user.email))
      .where('kind', '=', 'signin_failure')
      .execute();
    expect(failures).toEqual([expect.objectContaining({ kind: 'signin_failure', created_at: t.clock.now() })]);
  });

  it('refuses a password that differs only in letter case or by a trailing space', async () => {
    const user = await signUp(t);
    for (const password of [user.password.toUpperCase(), `${user.password} `])
      expectError(await signin(user.email, password), 'unauthorized');
  });
});
