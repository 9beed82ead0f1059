import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { GOOD_PASSWORD, randomEmail, sessionCall } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let open: TestApp;
let closed: TestApp;
beforeAll(async () => {
  open = await startTestApp();
  closed = await startTestApp({ signup: 'closed' });
  // An instance with an account: the first-account exception (signup-201-first-account.test.ts) is over.
  await closed.newAccount();
});
afterAll(async () => {
  await open.close();
  await closed.close();
});

describe('POST /api/v1/auth/signup → 403', () => {
  it('is forbidden when CLARION_SIGNUP=closed, and creates nothing', async () => {
    const email = randomEmail();
    const response = await sessionCall(closed, 'POST', '/api/v1/auth/signup', null, {
      body: { email, password: GOOD_PASSWORD },
    });
    expect(expectError(response, 'forbidden').message).toMatch(/Sign-up is closed/);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(
      await closed.store.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('tells the dashboard that sign-up is closed', async () => {
    const response = await sessionCall(closed, 'GET', '/api/v1/auth/session', null);
    expect(response.body.data).toEqual({ signup: 'closed', session: null });
  });

  it('refuses a sign-up the browser marks as sent from another site (csrf_failed)', async () => {
    const email = randomEmail();
    const response = await sessionCall(open, 'POST', '/api/v1/auth/signup', null, {
      body: { email, password: GOOD_PASSWORD },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expectError(response, 'csrf_failed');
    expect(
      await open.store.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst(),
    ).toBeUndefined();
  });
});
