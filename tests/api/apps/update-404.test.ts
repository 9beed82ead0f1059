import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp, send } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/apps/:id → 404 not_found', () => {
  it("answers not_found for an unknown id and for another account's app, which stays as it was", async () => {
    const owner = await t.newAccount();
    const app = await createTestApp(t, owner.secretKey);
    const other = await t.newAccount();
    expectError(await send(t, 'PATCH', `/api/v1/apps/${newId('app')}`, other.secretKey, { name: 'X' }), 'not_found');
    expectError(await send(t, 'PATCH', `/api/v1/apps/${app.id}`, other.secretKey, { name: 'Stolen' }), 'not_found');
    expect((await get(t.app, `/api/v1/apps/${app.id}`, owner.secretKey)).body.data.name).toBe(app.name);
  });
});
