import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp, send } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/apps/:id → 404 not_found', () => {
  it("answers not_found for another account's app and leaves it", async () => {
    const owner = await t.newAccount();
    const app = await createTestApp(t, owner.secretKey);
    const other = await t.newAccount();
    expectError(await send(t, 'DELETE', `/api/v1/apps/${app.id}`, other.secretKey), 'not_found');
    expect((await get(t.app, `/api/v1/apps/${app.id}`, owner.secretKey)).statusCode).toBe(200);
  });
});
