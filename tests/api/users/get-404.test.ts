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

describe('GET /api/v1/users/:externalId → 404', () => {
  it("answers not_found for an unknown person, another account's, and one only outside the key scope", async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const other = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, other.publishableKey, 'news', 'ios', { externalId: 'carol' });
    await subscribe(t.app, account.publishableKey, 'sport', 'ios', { externalId: 'dave' });
    const scoped = await account.key({ channels: ['news'] });
    expectError(await get(t.app, '/api/v1/users/nobody', account.secretKey), 'not_found');
    expectError(await get(t.app, '/api/v1/users/carol', account.secretKey), 'not_found');
    expectError(await get(t.app, '/api/v1/users/dave', scoped.value), 'not_found');
  });
});
