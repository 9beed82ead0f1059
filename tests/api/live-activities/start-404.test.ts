import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities → 404 channel_not_found', () => {
  it('answers channel_not_found for an unknown channel, and charges nothing', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    expect(
      expectError(
        await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('nope')),
        'channel_not_found',
      ).details,
    ).toEqual({ channelCode: 'nope' });
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it("answers channel_not_found for another account's channel", async () => {
    const owner = await t.newAccount({ channels: ['their-orders'] });
    const other = await t.newAccount();
    expectError(
      await post(t.app, '/api/v1/live-activities', other.secretKey, progressActivity('their-orders')),
      'channel_not_found',
    );
    expect(await accountCounts(t, owner.id)).toMatchObject({ live_activities: 0 });
  });
});
