import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 404 channel_not_found', () => {
  it('answers channel_not_found for an unknown channel code, and stores nothing or charges nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    const error = expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'nope', title: 'Hi' }),
      'channel_not_found',
    );
    expect(error.details).toEqual({ channelCode: 'nope' });
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it("answers channel_not_found for another account's channel code", async () => {
    const owner = await t.newAccount({ channels: ['owner-only'] });
    const other = await t.newAccount();
    expectError(
      await post(t.app, '/api/v1/notifications', other.secretKey, { channelCode: 'owner-only', title: 'Hi' }),
      'channel_not_found',
    );
    expect(await accountCounts(t, owner.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
  });
});
