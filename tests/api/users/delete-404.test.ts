import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { del, get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/users/:externalId → 404', () => {
  it("answers not_found for an unknown person and for another account's, and erases nothing", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const other = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, other.publishableKey, 'news', 'ios', { externalId: 'carol' });
    expectError(await del(t.app, '/api/v1/users/nobody', account.secretKey), 'not_found');
    expectError(await del(t.app, '/api/v1/users/carol', account.secretKey), 'not_found');
    expect(expectSuccess(await get(t.app, '/api/v1/users/carol', other.secretKey), 200).subscribers).toHaveLength(1);
  });
});
