import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../../../src/domain/session-lifetime.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const DAY = 86_400_000;
const state = async (session: Parameters<typeof sessionCall>[3]) =>
  expectSuccess(await sessionCall(t, 'GET', '/api/v1/auth/session', session), 200);

describe('GET /api/v1/auth/session → 200', () => {
  it('answers session: null without a cookie, and with a cookie that names no session (clearing it)', async () => {
    expect(await state(null)).toEqual({ signup: 'open', session: null });
    const forged = await sessionCall(t, 'GET', '/api/v1/auth/session', {
      cookie: `clarion_session=${'A'.repeat(43)}`,
      csrfToken: '',
      ip: '10.0.0.1',
    });
    expect(forged.body.data.session).toBeNull();
    expect(forged.headers['set-cookie']).toMatch(/^clarion_session=; .*Max-Age=0/);
    expect(forged.headers['cache-control']).toBe('no-store');
  });

  it('describes the signed-in user, account and CSRF token, and is readable without the CSRF token', async () => {
    const user = await signUp(t, { accountName: 'Acme' });
    const data = await state({ ...user, csrfToken: '' });
    expect(data.session).toMatchObject({
      user: { id: user.userId, email: user.email },
      account: { id: user.accountId, name: 'Acme' },
      csrfToken: user.csrfToken,
    });
  });

  it(`ends a session left unused for ${SESSION_IDLE_MS / DAY} days`, async () => {
    const user = await signUp(t);
    t.clock.advance(SESSION_IDLE_MS - 1);
    expect((await state(user)).session).not.toBeNull();
    // That use moved the idle expiry on: 7 more days from now.
    t.clock.advance(SESSION_IDLE_MS - 1);
    expect((await state(user)).session).not.toBeNull();
    t.clock.advance(SESSION_IDLE_MS);
    expect((await state(user)).session).toBeNull();
    expect((await sessionCall(t, 'GET', '/api/v1/channels', user)).statusCode).toBe(401);
  });

  it(`ends a session ${SESSION_MAX_MS / DAY} days after sign-in even when it is used every day`, async () => {
    const user = await signUp(t);
    for (let day = 1; day < SESSION_MAX_MS / DAY; day += 1) {
      t.clock.advance(DAY);
      expect((await sessionCall(t, 'GET', '/api/v1/channels', user)).statusCode, `day ${day}`).toBe(200);
    }
    t.clock.advance(DAY);
    expect((await sessionCall(t, 'GET', '/api/v1/channels', user)).statusCode).toBe(401);
  });
});
