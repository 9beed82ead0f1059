import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publishableRateLimitPerAddress: 1, publishableRateLimitBurst: 2 });
});
afterAll(async () => t.close());

describe('GET /api/v1/web-push/public-key → 429 rate_limited', () => {
  it("counts a page's publishable key as every publishable-key call is counted; a caller without a key is not", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const path = '/api/v1/web-push/public-key?channelCode=news';
    expectSuccess(await get(t.app, path, account.publishableKey), 200);
    expectSuccess(await get(t.app, path, account.publishableKey), 200);
    const limited = await get(t.app, path, account.publishableKey);
    expect(expectError(limited, 'rate_limited').details).toEqual({ retryAfterSeconds: 1 });
    expectSuccess(await get(t.app, '/api/v1/web-push/public-key', null), 200);
  });
});
