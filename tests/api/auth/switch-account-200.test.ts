import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/store/accounts-queries.ts';
import { createChannel } from '../../../src/store/channels-queries.ts';
import { addMembership } from '../../../src/store/users-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/switch-account → 200', () => {
  it("makes the session act for another of the user's accounts, for every endpoint", async () => {
    const user = await signUp(t, { accountName: 'Personal' });
    const team = await createAccount(t.store.db, { name: 'Team', plan: 'pro', now: t.clock.now() });
    await addMembership(t.store.db, { accountId: team.id, userId: user.userId, role: 'member', now: t.clock.now() });
    await createChannel(t.store.db, {
      accountId: team.id,
      code: 'team-news',
      name: 'Team news',
      description: null,
      now: t.clock.now(),
    });

    const data = expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/auth/switch-account', user, { body: { accountId: team.id } }),
      200,
    );
    expect(data.session).toMatchObject({
      account: { id: team.id, name: 'Team', plan: 'pro', role: 'member' },
      csrfToken: user.csrfToken,
    });
    const channels = expectSuccess(await sessionCall(t, 'GET', '/api/v1/channels', user), 200);
    expect(channels.map((channel: { code: string }) => channel.code)).toEqual(['team-news']);
    expect(expectSuccess(await sessionCall(t, 'GET', '/api/v1/usage', user), 200)).toMatchObject({
      plan: 'pro',
      limit: 10_000,
    });

    // And back.
    expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/auth/switch-account', user, { body: { accountId: user.accountId } }),
      200,
    );
    expect(expectSuccess(await sessionCall(t, 'GET', '/api/v1/channels', user), 200)).toEqual([]);
  });

  it('ends the session’s access when the user is removed from the account it acts for', async () => {
    const user = await signUp(t);
    const team = await createAccount(t.store.db, { name: 'Team', plan: 'free', now: t.clock.now() });
    await addMembership(t.store.db, { accountId: team.id, userId: user.userId, role: 'member', now: t.clock.now() });
    await sessionCall(t, 'POST', '/api/v1/auth/switch-account', user, { body: { accountId: team.id } });
    await t.store.db
      .deleteFrom('memberships')
      .where('account_id', '=', team.id)
      .where('user_id', '=', user.userId)
      .execute();
    expect((await sessionCall(t, 'GET', '/api/v1/channels', user)).statusCode).toBe(401);
  });
});
