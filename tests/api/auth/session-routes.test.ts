import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { dashboardRoutes, rawRequest, registeredApiRoutes } from '../../harness/api-routes.ts';
import { signUp, type DashboardSession } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let user: DashboardSession;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  user = await signUp(t);
  account = await t.newAccount();
});
afterAll(async () => t.close());

/** The routes only a session may call, with a concrete path (ids of a key that need not exist). */
const sessionOnly = [
  { method: 'POST', path: '/api/v1/auth/signout' },
  { method: 'POST', path: '/api/v1/auth/switch-account', body: { accountId: 'acc_x' } },
  { method: 'GET', path: '/api/v1/keys' },
  { method: 'POST', path: '/api/v1/keys', body: { name: 'k' } },
  { method: 'POST', path: '/api/v1/keys/key_01h00000000000000000000000/revoke' },
  { method: 'POST', path: '/api/v1/keys/key_01h00000000000000000000000/rotate' },
] as const;

describe("the dashboard's own routes", () => {
  it('are the routes the key-based cross-cutting tests leave out, and all exist', () => {
    const registered = new Set(registeredApiRoutes(t.app).map((route) => `${route.method} ${route.url}`));
    for (const route of dashboardRoutes)
      expect(registered.has(`${route.method} ${route.url}`), `${route.method} ${route.url}`).toBe(true);
  });

  it.each(sessionOnly.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: 401 without a session, 403 forbidden to any API key',
    async (_name, route) => {
      const body = 'body' in route ? JSON.stringify(route.body) : undefined;
      const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
      expectError(await rawRequest(t.app, route.method, route.path, null, body, headers), 'unauthorized');
      for (const key of [account.secretKey, account.publishableKey]) {
        expect(
          expectError(await rawRequest(t.app, route.method, route.path, key, body, headers), 'forbidden').message,
        ).toMatch(/dashboard session/);
      }
      expectError(await rawRequest(t.app, route.method, route.path, 'clr_sk_bad', body, headers), 'unauthorized');
    },
  );

  it.each([
    '/api/v1/auth/signup',
    '/api/v1/auth/signin',
    '/api/v1/auth/switch-account',
    '/api/v1/keys',
    '/api/v1/keys/key_01h00000000000000000000000/rotate',
  ])('POST %s: 415 for a body that is not JSON, 400 for broken JSON, 413 over 64 KiB', async (path) => {
    const session = path.startsWith('/api/v1/auth/sign') ? null : user;
    expectError(await sessionRaw(path, session, 'x=1', 'application/x-www-form-urlencoded'), 'unsupported_media_type');
    expectError(await sessionRaw(path, session, '{"name": ', 'application/json'), 'invalid_json');
    expectError(
      await sessionRaw(path, session, JSON.stringify({ name: 'x'.repeat(70_000) }), 'application/json'),
      'payload_too_large',
    );
  });
});

async function sessionRaw(path: string, session: DashboardSession | null, payload: string, contentType: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: path,
    remoteAddress: session?.ip ?? '10.9.9.9',
    headers: {
      'content-type': contentType,
      ...(session ? { cookie: session.cookie, 'x-csrf-token': session.csrfToken } : {}),
    },
    payload,
  });
  return Object.assign(response, { body: JSON.parse(response.body) });
}
