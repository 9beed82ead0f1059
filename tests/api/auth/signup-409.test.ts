import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { GOOD_PASSWORD, sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/signup → 409 conflict', () => {
  it('refuses an email that already has a user, whatever its letter case, and creates no account', async () => {
    const first = await signUp(t);
    const accountsBefore = await t.store.db.selectFrom('accounts').select('id').execute();
    const response = await sessionCall(t, 'POST', '/api/v1/auth/signup', null, { body: { email: ` ${first.email.toUpperCase()} `, password: `${GOOD_PASSWORD}!` } });
    expect(expectError(response, 'conflict')).toMatchObject({ message: expect.stringMatching(/sign in instead/), details: { field: 'email' } });
    expect(await t.store.db.selectFrom('accounts').select('id').execute()).toHaveLength(accountsBefore.length);
  });
});
