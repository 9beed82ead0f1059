import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp } from '../apps/app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ requireOwnApp: true });
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 409 app_required (CLARION_REQUIRE_OWN_APP=true)', () => {
  it('refuses a channel on the built-in app and stores or charges nothing; a channel on its own app sends', async () => {
    const account = await t.newAccount({ channels: ['builtin'] });
    const before = await accountState(t, account.id);
    const refused = expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'builtin', title: 'Hi' }),
      'app_required',
    );
    expect(refused.details).toEqual({ channelCode: 'builtin' });
    expect(await accountState(t, account.id)).toEqual(before);

    await createTestApp(t, account.secretKey);
    expect((await post(t.app, '/api/v1/channels', account.secretKey, { code: 'own' })).statusCode).toBe(201);
    expect(
      (await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'own', title: 'Hi' })).statusCode,
    ).toBe(201);
  });
});
