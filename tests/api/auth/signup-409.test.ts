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
    // Named, so the check below looks for this request's account only: other files create accounts in the same
    // database at the same time, and a count of every account would see theirs.
    const accountName = `Second try ${first.email}`;
    const response = await sessionCall(t, 'POST', '/api/v1/auth/signup', null, {
      body: { email: ` ${first.email.toUpperCase()} `, password: `${GOOD_PASSWORD}!`, accountName },
    });
    expect(expectError(response, 'conflict')).toMatchObject({
      message: expect.stringMatching(/sign in instead/),
      details: { field: 'email' },
    });
    expect(await t.store.db.selectFrom('accounts').select('id').where('name', '=', accountName).execute()).toEqual([]);
  });
});
