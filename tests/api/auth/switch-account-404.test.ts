import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/switch-account → 404 not_found', () => {
  it("refuses another user's account exactly like one that does not exist, and the session stays where it was", async () => {
    const user = await signUp(t);
    const stranger = await signUp(t);
    const theirs = await sessionCall(t, 'POST', '/api/v1/auth/switch-account', user, {
      body: { accountId: stranger.accountId },
    });
    const none = await sessionCall(t, 'POST', '/api/v1/auth/switch-account', user, {
      body: { accountId: newId('account') },
    });
    expect(expectError(theirs, 'not_found').message).toBe(expectError(none, 'not_found').message);
    const session = await t.store.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(session.account_id).toBe(user.accountId);
  });
});
