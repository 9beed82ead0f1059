import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys/:id/rotate → 404 not_found', () => {
  it("answers not_found for an unknown id and for another account's key, which is left alone", async () => {
    const user = await signUp(t);
    const other = await t.newAccount();
    for (const id of [newId('apiKey'), other.secretKeyId])
      expectError(await sessionCall(t, 'POST', `/api/v1/keys/${id}/rotate`, user), 'not_found');
    expect((await get(t.app, '/api/v1/usage', other.secretKey)).statusCode).toBe(200);
    expect(
      await t.store.db.selectFrom('api_keys').selectAll().where('account_id', '=', user.accountId).execute(),
    ).toEqual([]);
  });
});
