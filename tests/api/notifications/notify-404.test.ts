import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notify → 404 channel_not_found', () => {
  it('answers channel_not_found for an unknown channel, and charges nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expect(
      expectError(
        await post(t.app, '/api/v1/notify', account.secretKey, { channel: 'nope', title: 'Hi' }),
        'channel_not_found',
      ).details,
    ).toEqual({ channelCode: 'nope' });
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
  });

  it("answers channel_not_found for another account's channel", async () => {
    await t.newAccount({ channels: ['theirs'] });
    const other = await t.newAccount();
    expectError(
      await post(t.app, '/api/v1/notify', other.secretKey, { channel: 'theirs', title: 'Hi' }),
      'channel_not_found',
    );
  });
});
