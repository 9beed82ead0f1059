import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/subscribers → 404', () => {
  it("answers channel_not_found for an unknown channel, and for another account's", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const other = await t.newAccount({ channels: ['private'] });
    await subscribe(t.app, other.publishableKey, 'private');
    expectError(await get(t.app, '/api/v1/subscribers?channelCode=nowhere', account.secretKey), 'channel_not_found');
    expectError(await get(t.app, '/api/v1/subscribers?channelCode=private', account.secretKey), 'channel_not_found');
  });
});
