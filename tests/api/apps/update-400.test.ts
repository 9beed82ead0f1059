import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../../harness/requests.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp, iosCredentials, send } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/apps/:id → 400 validation_failed', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a bad .p8', { ios: { ...iosCredentials(), key: 'nope' } }, ['ios.key']],
    ['a blank name', { name: ' ' }, ['name']],
    ['web: null', { web: null }, ['web']],
    ['a throttle of 0', { throttlePerMinute: 0 }, ['throttlePerMinute']],
    ['a throttle that is not a whole number', { throttlePerMinute: 2.5 }, ['throttlePerMinute']],
  ])('refuses %s and changes nothing', async (_name, body, fields) => {
    const account = await t.newAccount();
    const app = await createTestApp(t, account.secretKey);
    expectValidation(await send(t, 'PATCH', `/api/v1/apps/${app.id}`, account.secretKey, body), fields);
    expect((await get(t.app, `/api/v1/apps/${app.id}`, account.secretKey)).body.data).toEqual(app);
  });
});
