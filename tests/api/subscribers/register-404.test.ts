import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/subscribers → 404 channel_not_found', () => {
  it('answers channel_not_found for an unknown channel, and stores nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    const response = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'nope',
      platform: 'android',
      token: tokens.android(),
    });
    expect(expectError(response, 'channel_not_found').details).toEqual({ channelCode: 'nope' });
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it("answers channel_not_found for another account's channel", async () => {
    const owner = await t.newAccount({ channels: ['theirs'] });
    const other = await t.newAccount();
    expectError(
      await post(t.app, '/api/v1/subscribers', other.publishableKey, {
        channelCode: 'theirs',
        platform: 'android',
        token: tokens.android(),
      }),
      'channel_not_found',
    );
    expect(await accountCounts(t, owner.id)).toMatchObject({ subscribers: 0 });
  });
});
