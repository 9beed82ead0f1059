import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { iosCredentials } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('/api/v1/apps → 403 forbidden', () => {
  it('refuses a publishable key and a channel-scoped secret key, storing nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ kind: 'secret', channels: ['news'] });
    const before = await accountState(t, account.id);
    expectError(
      await post(t.app, '/api/v1/apps', account.publishableKey, { name: 'A', ios: iosCredentials() }),
      'forbidden',
    );
    expectError(await post(t.app, '/api/v1/apps', scoped.value, { name: 'A', ios: iosCredentials() }), 'forbidden');
    expectError(await get(t.app, '/api/v1/apps', scoped.value), 'forbidden');
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
