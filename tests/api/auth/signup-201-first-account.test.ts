import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { GOOD_PASSWORD, randomEmail, randomIp, sessionCall } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

// Closed sign-up (the default) with its one exception: an instance without any account lets the dashboard create
// the first one, the operator's. Each test starts on an empty database of its own.
let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

// The default of CLARION_SIGNUP, as an instance without the variable gets it (the harness itself opens sign-up).
const emptyInstance = async () =>
  (t = await startTestApp({ signup: loadConfig({}).signup }, { isolatedDatabase: true }));
const signup = (app: TestApp, email = randomEmail()) =>
  sessionCall(app, 'POST', '/api/v1/auth/signup', null, {
    body: { email, password: GOOD_PASSWORD, accountName: 'Operator' },
    ip: randomIp(),
  });
const countRows = async (app: TestApp, table: 'users' | 'accounts') =>
  (await app.store.db.selectFrom(table).select('id').execute()).length;

describe('POST /api/v1/auth/signup → 201 (the first account of a closed instance)', () => {
  it('offers the first account on an empty instance, then closes behind it', async () => {
    const app = await emptyInstance();
    expect(expectSuccess(await sessionCall(app, 'GET', '/api/v1/auth/session', null), 200)).toEqual({
      signup: 'first-account',
      session: null,
    });

    const first = expectSuccess(await signup(app), 201);
    expect(first.signup).toBe('closed');
    expect(first.session).toMatchObject({ account: { name: 'Operator', role: 'owner' } });

    const second = await signup(app);
    expect(expectError(second, 'forbidden').message).toMatch(/Sign-up is closed/);
    expect(await countRows(app, 'users')).toBe(1);
    expect(await countRows(app, 'accounts')).toBe(1);
    expect(expectSuccess(await sessionCall(app, 'GET', '/api/v1/auth/session', null), 200)).toEqual({
      signup: 'closed',
      session: null,
    });
  });

  it('lets exactly one of two simultaneous first sign-ups through', async () => {
    const app = await emptyInstance();
    const answers = await Promise.all([signup(app), signup(app), signup(app)]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 403, 403]);
    expect(await countRows(app, 'users')).toBe(1);
    expect(await countRows(app, 'accounts')).toBe(1);
  });

  it('is closed once the CLI has created an account (no CLARION_SIGNUP)', async () => {
    const app = await emptyInstance();
    await app.newAccount();
    expect(expectSuccess(await sessionCall(app, 'GET', '/api/v1/auth/session', null), 200)).toEqual({
      signup: 'closed',
      session: null,
    });
    expectError(await signup(app), 'forbidden');
    expect(await countRows(app, 'users')).toBe(0);
  });
});
