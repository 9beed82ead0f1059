import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { del, get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/subscribers/:id → 404', () => {
  it("answers not_found for an unknown id, another account's subscriber and one outside the key scope, and changes nothing", async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const other = await t.newAccount({ channels: ['news'] });
    const theirs = await subscribe(t.app, other.publishableKey, 'news');
    const sport = await subscribe(t.app, account.publishableKey, 'sport');
    const scoped = await account.key({ channels: ['news'] });
    expectError(await del(t.app, `/api/v1/subscribers/${newId('subscriber')}`, account.secretKey), 'not_found');
    expectError(await del(t.app, `/api/v1/subscribers/${theirs}`, account.secretKey), 'not_found');
    expectError(await del(t.app, `/api/v1/subscribers/${sport}`, scoped.value), 'not_found');
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${theirs}`, other.secretKey), 200).status).toBe(
      'active',
    );
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${sport}`, account.secretKey), 200).status).toBe(
      'active',
    );
  });
});
