import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionToken } from '../../../src/domain/session-token.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import {
  GOOD_PASSWORD,
  randomEmail,
  randomIp,
  sessionCall,
  sessionCookieOf,
  signUp,
} from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const setCookie = (response: { headers: Record<string, unknown> }) => String(response.headers['set-cookie']);

describe('POST /api/v1/auth/signup → 201', () => {
  it('creates a user who owns a new Free account, and signs the browser in', async () => {
    const email = randomEmail();
    const response = await sessionCall(t, 'POST', '/api/v1/auth/signup', null, {
      body: { email: email.toUpperCase(), password: GOOD_PASSWORD, accountName: 'Acme' },
    });
    const data = expectSuccess(response, 201);
    expect(data).toEqual({
      signup: 'open',
      session: {
        user: { id: expect.stringMatching(/^usr_/), email },
        account: { id: expect.stringMatching(/^acc_/), name: 'Acme', plan: 'free', role: 'owner' },
        accounts: [{ id: data.session.account.id, name: 'Acme', plan: 'free', role: 'owner' }],
        csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        expiresAt: new Date(t.clock.now() + 7 * 86_400_000).toISOString(),
      },
    });
    expect(response.headers['cache-control']).toBe('no-store');
    const user = await t.store.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^scrypt\$/);
    expect(user.password_hash).not.toContain(GOOD_PASSWORD);
    const usage = expectSuccess(
      await sessionCall(t, 'GET', '/api/v1/usage', {
        cookie: sessionCookieOf(response)!,
        csrfToken: '',
        ip: randomIp(),
      }),
      200,
    );
    expect(usage).toMatchObject({ plan: 'free', limit: 250, used: 0 });
  });

  it('sets an HttpOnly, SameSite=Lax session cookie for the whole site, without Secure over plain HTTP', async () => {
    const response = await sessionCall(t, 'POST', '/api/v1/auth/signup', null, {
      body: { email: randomEmail(), password: GOOD_PASSWORD },
    });
    expect(response.statusCode).toBe(201);
    const cookie = setCookie(response);
    expect(cookie).toMatch(/^clarion_session=[A-Za-z0-9_-]{43}; /);
    const attributes = cookie.split('; ').slice(1);
    expect(attributes).toEqual(['Path=/', `Max-Age=${30 * 86_400}`, 'HttpOnly', 'SameSite=Lax']);
  });

  it('stores only a hash of the session token', async () => {
    const session = await signUp(t);
    const rows = await t.store.db.selectFrom('sessions').selectAll().where('user_id', '=', session.userId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(hashSessionToken(session.token));
    expect(JSON.stringify(rows)).not.toContain(session.token);
    expect(JSON.stringify(rows)).not.toContain(session.csrfToken);
  });

  it('names the account after the email when no name is given', async () => {
    const session = await signUp(t);
    const account = await t.store.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', session.accountId)
      .executeTakeFirstOrThrow();
    expect(account).toMatchObject({ name: session.email, plan: 'free', monthly_limit: null });
  });
});

describe('the Secure cookie attribute behind a proxy', () => {
  let proxied: TestApp;
  beforeAll(async () => {
    proxied = await startTestApp({ trustProxy: '127.0.0.1' });
  });
  afterAll(async () => proxied.close());

  const signupFrom = (app: TestApp, remoteAddress: string, proto: string) =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/auth/signup',
      remoteAddress,
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': proto, 'x-forwarded-for': randomIp() },
      payload: JSON.stringify({ email: randomEmail(), password: GOOD_PASSWORD }),
    });

  it('adds Secure when a trusted proxy says the request came over HTTPS', async () => {
    const response = await signupFrom(proxied, '127.0.0.1', 'https');
    expect(response.statusCode).toBe(201);
    expect(setCookie(response).split('; ')).toContain('Secure');
  });

  it('ignores X-Forwarded-Proto from anyone else, and everywhere when no proxy is configured', async () => {
    for (const [app, address] of [
      [proxied, '10.1.2.3'],
      [t, '127.0.0.1'],
    ] as const) {
      const response = await signupFrom(app, address, 'https');
      expect(response.statusCode).toBe(201);
      expect(setCookie(response).split('; ')).not.toContain('Secure');
    }
  });

  it('clears the cookie with the same attributes on sign-out', async () => {
    const signedUp = await signupFrom(proxied, '127.0.0.1', 'https');
    const csrf = JSON.parse(signedUp.body).data.session.csrfToken;
    const response = await proxied.app.inject({
      method: 'POST',
      url: '/api/v1/auth/signout',
      remoteAddress: '127.0.0.1',
      headers: { cookie: sessionCookieOf(signedUp)!, 'x-csrf-token': csrf, 'x-forwarded-proto': 'https' },
    });
    expect(response.statusCode).toBe(200);
    expect(setCookie(response)).toBe('clarion_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
  });
});
