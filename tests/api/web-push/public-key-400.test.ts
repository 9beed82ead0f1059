import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/web-push/public-key → 400 validation_failed', () => {
  it('refuses a channelCode that is no channel code, and a parameter it does not know', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const badCode = await get(t.app, '/api/v1/web-push/public-key?channelCode=Not%20a%20code', account.publishableKey);
    expect(expectError(badCode, 'validation_failed').details.fields).toEqual([
      expect.objectContaining({ field: 'channelCode' }),
    ]);
    const unknown = await get(t.app, '/api/v1/web-push/public-key?channel=news', account.publishableKey);
    expect(expectError(unknown, 'validation_failed').details.fields).toEqual([
      expect.objectContaining({ field: 'channel' }),
    ]);
  });
});
