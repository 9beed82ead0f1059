import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys → 400 validation_failed', () => {
  it.each([
    ['no name', {}, ['name']],
    ['an empty name', { name: '' }, ['name']],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, ['name']],
    ['an unknown kind', { name: 'k', kind: 'admin' }, ['kind']],
    ['an empty channel list', { name: 'k', channels: [] }, ['channels']],
    ['a bad channel code', { name: 'k', channels: ['News!'] }, ['channels.0']],
    ['channels: null (leave it out for every channel)', { name: 'k', channels: null }, ['channels']],
    ['an unknown field', { name: 'k', expiresAt: '2030-01-01T00:00:00Z' }, ['expiresAt']],
  ])('refuses %s and creates no key', async (_name, body, fields) => {
    const user = await signUp(t);
    expectValidation(await sessionCall(t, 'POST', '/api/v1/keys', user, { body }), fields);
    expect(
      await t.store.db.selectFrom('api_keys').selectAll().where('account_id', '=', user.accountId).execute(),
    ).toEqual([]);
  });
});
