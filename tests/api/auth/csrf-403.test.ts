import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { sessionCall, signUp, type DashboardSession } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** State-changing requests a session can make, one per kind of endpoint (key-era, dashboard-only, auth). */
async function changes(user: DashboardSession) {
  await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news' } });
  const key = (await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'target' } })).body.data;
  return [
    { url: '/api/v1/channels', body: { code: 'sport' } },
    { url: '/api/v1/notifications', body: { channelCode: 'news', title: 'Hi' } },
    { url: '/api/v1/notify', body: { channel: 'news', title: 'Hi' } },
    { url: '/api/v1/keys', body: { name: 'stolen' } },
    { url: `/api/v1/keys/${key.id}/revoke`, body: undefined },
    { url: `/api/v1/keys/${key.id}/rotate`, body: { graceSeconds: 60 } },
    { url: '/api/v1/auth/switch-account', body: { accountId: user.accountId } },
    { url: '/api/v1/auth/signout', body: undefined },
  ];
}

describe('session requests that change something → 403 csrf_failed without the right X-CSRF-Token', () => {
  it('refuses a missing, a wrong, an empty and another session’s token, and a cross-site request, changing nothing', async () => {
    const user = await signUp(t);
    const other = await signUp(t);
    const cases: Array<[string, { csrf?: string | null; headers?: Record<string, string> }]> = [
      ['no token', { csrf: null }],
      ['a wrong token', { csrf: 'x'.repeat(43) }],
      ['an empty token', { headers: { 'x-csrf-token': '' }, csrf: null }],
      ["another session's token", { csrf: other.csrfToken }],
      ['the session token itself', { csrf: user.token }],
      ['the right token but marked cross-site by the browser', { headers: { 'sec-fetch-site': 'cross-site' } }],
    ];
    for (const request of await changes(user)) {
      const before = await accountState(t, user.accountId);
      const keysBefore = await t.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', user.accountId)
        .execute();
      for (const [label, options] of cases) {
        const response = await sessionCall(t, 'POST', request.url, user, { body: request.body, ...options });
        expect(response.statusCode, `${request.url} with ${label}`).toBe(403);
        expectError(response, 'csrf_failed');
      }
      expect(await accountState(t, user.accountId)).toEqual(before);
      expect(
        await t.store.db.selectFrom('api_keys').selectAll().where('account_id', '=', user.accountId).execute(),
      ).toEqual(keysBefore);
    }
    // The session survived all of it.
    expect((await sessionCall(t, 'GET', '/api/v1/auth/session', user)).body.data.session).not.toBeNull();
  });

  it('needs no token to read (GET changes nothing), and accepts the right one in any request', async () => {
    const user = await signUp(t);
    for (const url of [
      '/api/v1/channels',
      '/api/v1/keys',
      '/api/v1/usage',
      '/api/v1/notifications',
      '/api/v1/usage/daily',
    ]) {
      expect((await sessionCall(t, 'GET', url, user, { csrf: null })).statusCode, url).toBe(200);
    }
    expect((await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news' } })).statusCode).toBe(201);
  });

  it('does not apply to API keys, which no browser sends by itself', async () => {
    const account = await t.newAccount();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/channels',
      headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
      payload: '{"code":"news"}',
    });
    expect(response.statusCode).toBe(201);
  });
});
