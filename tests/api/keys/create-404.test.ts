import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys → 404 channel_not_found', () => {
  it('refuses a scope naming a channel the account does not have (a typo would make a key that can do nothing)', async () => {
    const user = await signUp(t);
    await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news' } });
    const other = await t.newAccount({ channels: ['sport'] });
    expect(other.id).not.toBe(user.accountId);
    const response = await sessionCall(t, 'POST', '/api/v1/keys', user, {
      body: { name: 'k', channels: ['news', 'sport'] },
    });
    expect(expectError(response, 'channel_not_found').details).toEqual({ channelCode: 'sport' });
    expect(
      await t.store.db.selectFrom('api_keys').selectAll().where('account_id', '=', user.accountId).execute(),
    ).toEqual([]);
  });
});
