import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/web-push/public-key → 404 channel_not_found', () => {
  it("names no channel of another account: each account's codes are its own", async () => {
    await t.newAccount({ channels: ['theirs'] });
    const account = await t.newAccount({ channels: ['news'] });
    for (const code of ['theirs', 'nothing-here']) {
      const response = await get(t.app, `/api/v1/web-push/public-key?channelCode=${code}`, account.publishableKey);
      expect(expectError(response, 'channel_not_found').details).toEqual({ channelCode: code });
    }
  });
});
