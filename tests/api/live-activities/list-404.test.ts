import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/live-activities → 404 channel_not_found', () => {
  it('answers channel_not_found for a channelCode the account does not have', async () => {
    const owner = await t.newAccount({ channels: ['theirs'] });
    const account = await t.newAccount({ channels: ['orders'] });
    expect(
      expectError(
        await get(t.app, '/api/v1/live-activities?channelCode=theirs', account.secretKey),
        'channel_not_found',
      ).details,
    ).toEqual({ channelCode: 'theirs' });
    expect(owner.id).not.toBe(account.id);
  });
});
