import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys → 403 forbidden to every API key', () => {
  it('refuses secret keys (a leaked key must not mint keys that outlive its revocation), scoped ones and publishable ones', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const before = await t.store.db.selectFrom('api_keys').select('id').where('account_id', '=', account.id).execute();
    for (const key of [account.secretKey, scoped.value, account.publishableKey]) {
      expectError(await post(t.app, '/api/v1/keys', key, { name: 'escalated' }), 'forbidden');
    }
    expect(await t.store.db.selectFrom('api_keys').select('id').where('account_id', '=', account.id).execute()).toEqual(
      before,
    );
  });
});
