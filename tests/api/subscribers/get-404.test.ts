import { afterAll, beforeAll, describe, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/subscribers/:id → 404', () => {
  it("answers not_found for an unknown id, a malformed one, another account's subscriber and one outside the key scope", async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const other = await t.newAccount({ channels: ['news'] });
    const theirs = await subscribe(t.app, other.publishableKey, 'news');
    const sport = await subscribe(t.app, account.publishableKey, 'sport');
    const scoped = await account.key({ channels: ['news'] });
    expectError(await get(t.app, `/api/v1/subscribers/${newId('subscriber')}`, account.secretKey), 'not_found');
    expectError(await get(t.app, '/api/v1/subscribers/nonsense', account.secretKey), 'not_found');
    expectError(await get(t.app, `/api/v1/subscribers/${theirs}`, account.secretKey), 'not_found');
    expectError(await get(t.app, `/api/v1/subscribers/${sport}`, scoped.value), 'not_found');
  });
});
