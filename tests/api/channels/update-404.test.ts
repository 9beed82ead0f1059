import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels/:code/update → 404', () => {
  it("answers channel_not_found for a channel the account does not have (another account's included)", async () => {
    const other = await t.newAccount({ channels: ['news'] });
    const account = await t.newAccount();
    expect(
      expectError(
        await post(t.app, '/api/v1/channels/news/update', account.secretKey, { joinPage: true }),
        'channel_not_found',
      ).details,
    ).toEqual({ channelCode: 'news' });
    expect((await post(t.app, '/api/v1/channels/news/update', other.secretKey, {})).body.data.joinPage).toBe(false);
  });
});
