import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp, send } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/apps/:id → 200', () => {
  it('deletes an app no channel uses', async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    expect(expectSuccess(await send(t, 'DELETE', `/api/v1/apps/${app.id}`, account.secretKey), 200)).toEqual({
      id: app.id,
      deleted: true,
    });
    expectError(await get(t.app, `/api/v1/apps/${app.id}`, account.secretKey), 'not_found');
  });
});
