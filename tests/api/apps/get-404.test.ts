import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/apps/:id → 404 not_found', () => {
  it.each([
    ['an unknown id', () => newId('app')],
    ['a malformed id', () => 'app_nope'],
    ['a webhook id', () => newId('webhook')],
  ])('answers not_found for %s', async (_name, id) => {
    const account = await t.newAccount();
    expect(expectError(await get(t.app, `/api/v1/apps/${id()}`, account.secretKey), 'not_found').message).toBe(
      'No app with that id.',
    );
  });

  it("answers not_found for another account's app", async () => {
    const owner = await t.newAccount();
    const app = await createTestApp(t, owner.secretKey);
    const other = await t.newAccount();
    expectError(await get(t.app, `/api/v1/apps/${app.id}`, other.secretKey), 'not_found');
    expect((await get(t.app, `/api/v1/apps/${app.id}`, owner.secretKey)).statusCode).toBe(200);
  });
});
