import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp, send } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/apps/:id → 409 conflict', () => {
  it('refuses while a channel delivers through the app, naming the channels, and keeps it', async () => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    expect(
      (await post(t.app, '/api/v1/channels', account.secretKey, { code: 'orders', appId: app.id })).statusCode,
    ).toBe(201);
    const refused = expectError(await send(t, 'DELETE', `/api/v1/apps/${app.id}`, account.secretKey), 'conflict');
    expect(refused.details).toEqual({ appId: app.id, channelCodes: ['orders'] });
    expect((await get(t.app, `/api/v1/apps/${app.id}`, account.secretKey)).statusCode).toBe(200);
  });
});
