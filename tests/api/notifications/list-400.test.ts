import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/notifications → 400 validation_failed', () => {
  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['limit=ten', ['limit']],
    ['cursor=chn_01h00000000000000000000000', ['cursor']],
    ['cursor=garbage', ['cursor']],
    [`cursor=${'x'.repeat(65)}`, ['cursor']],
    ['status=delivered', ['status']],
    ['channelCode=Not%20a%20code', ['channelCode']],
    ['colour=red', ['colour']],
  ])('refuses ?%s', async (query, fields) => {
    const account = await t.newAccount({ channels: ['news'] });
    expectValidation(await get(t.app, `/api/v1/notifications?${query}`, account.secretKey), fields);
  });
});
