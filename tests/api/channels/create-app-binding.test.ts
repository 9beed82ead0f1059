import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectSuccess, expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp } from '../apps/app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** A channel names its app; default the account's first app, else the built-in one (null). */
describe('POST /api/v1/channels with apps', () => {
  it('binds to the built-in app without apps, to the first app by default, and to the app named', async () => {
    const account = await t.newAccount();
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels', account.secretKey, { code: 'before' }), 201).appId,
    ).toBeNull();
    const first = await createTestApp(t, account.secretKey, 'First');
    const second = await createTestApp(t, account.secretKey, 'Second');
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels', account.secretKey, { code: 'default' }), 201).appId,
    ).toBe(first.id);
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels', account.secretKey, { code: 'named', appId: second.id }), 201)
        .appId,
    ).toBe(second.id);
    // null asks for the instance's built-in app, even once the account has apps.
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels', account.secretKey, { code: 'built-in', appId: null }), 201)
        .appId,
    ).toBeNull();
  });

  it("refuses another account's app (400 on appId) and creates nothing", async () => {
    const owner = await t.newAccount();
    const app = await createTestApp(t, owner.secretKey);
    const other = await t.newAccount();
    const before = await accountState(t, other.id);
    expectValidation(await post(t.app, '/api/v1/channels', other.secretKey, { code: 'stolen', appId: app.id }), [
      'appId',
    ]);
    expectValidation(await post(t.app, '/api/v1/channels', other.secretKey, { code: 'stolen', appId: 'app_nope' }), [
      'appId',
    ]);
    expect(await accountState(t, other.id)).toEqual(before);
  });
});
