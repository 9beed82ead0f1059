import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/channels/:code → 404 channel_not_found', () => {
  it('answers channel_not_found for an unknown code', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expect(
      expectError(await get(t.app, '/api/v1/channels/nope', account.secretKey), 'channel_not_found').details,
    ).toEqual({ channelCode: 'nope' });
  });

  it("answers channel_not_found for another account's channel", async () => {
    await t.newAccount({ channels: ['theirs'] });
    const other = await t.newAccount();
    expectError(await get(t.app, '/api/v1/channels/theirs', other.secretKey), 'channel_not_found');
  });
});
