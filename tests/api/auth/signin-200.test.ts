import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMembership } from '../../../src/store/users-queries.ts';
import { createAccount } from '../../../src/store/accounts-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { randomIp, sessionCall, sessionCookieOf, signIn, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/signin → 200', () => {
  it('signs in with the right password, whatever the email letter case, with a new session each time', async () => {
    const user = await signUp(t);
    const response = await sessionCall(t, 'POST', '/api/v1/auth/signin', null, {
      body: { email: user.email.toUpperCase(), password: user.password },
    });
    const data = expectSuccess(response, 200);
    expect(data.session).toMatchObject({
      user: { id: user.userId, email: user.email },
      account: { id: user.accountId, role: 'owner' },
    });
    expect(response.headers['cache-control']).toBe('no-store');
    const cookie = sessionCookieOf(response)!;
    expect(cookie).not.toBe(user.cookie);
    expect(data.session.csrfToken).not.toBe(user.csrfToken);
    // Both sessions work: signing in on a second browser does not sign the first out.
    for (const session of [user, { cookie, csrfToken: data.session.csrfToken, ip: randomIp() }]) {
      expect((await sessionCall(t, 'GET', '/api/v1/channels', session)).statusCode).toBe(200);
    }
  });

  it("ends the browser's previous session when it signs in again (no session fixation)", async () => {
    const user = await signUp(t);
    const again = await sessionCall(t, 'POST', '/api/v1/auth/signin', user, {
      body: { email: user.email, password: user.password },
    });
    expect(again.statusCode).toBe(200);
    expect((await sessionCall(t, 'GET', '/api/v1/channels', user)).statusCode).toBe(401);
    expect(
      (await sessionCall(t, 'GET', '/api/v1/channels', { ...user, cookie: sessionCookieOf(again)! })).statusCode,
    ).toBe(200);
  });

  it('lands in the account the user joined first', async () => {
    const user = await signUp(t, { accountName: 'First' });
    const second = await createAccount(t.store.db, { name: 'Second', plan: 'pro', now: t.clock.now() + 1 });
    await addMembership(t.store.db, {
      accountId: second.id,
      userId: user.userId,
      role: 'member',
      now: t.clock.now() + 1,
    });
    const session = await signIn(t, user.email, user.password);
    expect(session.accountId).toBe(user.accountId);
    const state = (await sessionCall(t, 'GET', '/api/v1/auth/session', session)).body.data.session;
    expect(state.accounts.map((account: { name: string; role: string }) => `${account.name}:${account.role}`)).toEqual([
      'First:owner',
      'Second:member',
    ]);
  });

  it('signs in an owner created with the CLI (accounts create --owner-email)', async () => {
    const { hashPassword } = await import('../../../src/domain/passwords.ts');
    const { createUser } = await import('../../../src/store/users-queries.ts');
    const email = `cli-${Date.now()}@example.com`;
    const userRow = await createUser(t.store.db, {
      email,
      passwordHash: await hashPassword('a long cli password'),
      now: t.clock.now(),
    });
    const account = await createAccount(t.store.db, { name: 'CLI', plan: 'starter', now: t.clock.now() });
    await addMembership(t.store.db, { accountId: account.id, userId: userRow.id, role: 'owner', now: t.clock.now() });
    const session = await signIn(t, email, 'a long cli password');
    expect(session.accountId).toBe(account.id);
  });
});
