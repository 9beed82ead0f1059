import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/keys → 200', () => {
  it("lists the account's keys newest first with prefix, scope, status and last use, never a value or hash", async () => {
    const user = await signUp(t);
    await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news' } });
    const first = expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'first' } }), 201);
    t.clock.advance(1000);
    const second = expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/keys', user, {
        body: { name: 'second', kind: 'publishable', channels: ['news'] },
      }),
      201,
    );
    t.clock.advance(60_000);
    await get(t.app, '/api/v1/usage', first.key);
    await sessionCall(t, 'POST', `/api/v1/keys/${second.id}/revoke`, user);

    const page = (await sessionCall(t, 'GET', '/api/v1/keys', user)).body;
    expect(page.nextCursor).toBeNull();
    expect(page.data.map((key: { name: string; status: string }) => `${key.name}:${key.status}`)).toEqual([
      'second:revoked',
      'first:active',
    ]);
    expect(page.data[1]).toMatchObject({
      start: first.start,
      channels: null,
      lastUsedAt: new Date(t.clock.now()).toISOString(),
    });
    expect(page.data[0]).toMatchObject({
      kind: 'publishable',
      channels: ['news'],
      revokedAt: new Date(t.clock.now()).toISOString(),
    });
    for (const key of page.data) expect(Object.keys(key)).not.toContain('key');
    expect(JSON.stringify(page)).not.toMatch(/key_hash|clr_sk_[A-Za-z0-9_-]{32}/);
  });

  it('pages with limit and cursor, and shows only its own account', async () => {
    const user = await signUp(t);
    const other = await t.newAccount();
    expect(other.id).not.toBe(user.accountId);
    for (const name of ['a', 'b', 'c']) await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name } });
    const one = (await sessionCall(t, 'GET', '/api/v1/keys?limit=2', user)).body;
    expect(one.data.map((key: { name: string }) => key.name)).toEqual(['c', 'b']);
    const two = (await sessionCall(t, 'GET', `/api/v1/keys?limit=2&cursor=${one.nextCursor}`, user)).body;
    expect(two.data.map((key: { name: string }) => key.name)).toEqual(['a']);
    expect(two.nextCursor).toBeNull();
  });
});
