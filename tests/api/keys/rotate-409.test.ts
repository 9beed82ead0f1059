import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys/:id/rotate → 409 conflict', () => {
  it('refuses a revoked key, an expired one and one already rotated (in its grace period)', async () => {
    const user = await signUp(t);
    const create = async (name: string) =>
      expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name } }), 201);
    const revoked = await create('revoked');
    await sessionCall(t, 'POST', `/api/v1/keys/${revoked.id}/revoke`, user);
    const rotatedAtOnce = await create('rotated at once');
    await sessionCall(t, 'POST', `/api/v1/keys/${rotatedAtOnce.id}/rotate`, user);
    const inGrace = await create('in grace');
    const replacement = expectSuccess(
      await sessionCall(t, 'POST', `/api/v1/keys/${inGrace.id}/rotate`, user, { body: { graceSeconds: 600 } }),
      201,
    );

    const before = await t.store.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', user.accountId)
      .execute();
    expect(
      expectError(await sessionCall(t, 'POST', `/api/v1/keys/${revoked.id}/rotate`, user), 'conflict').message,
    ).toMatch(/Only an active key/);
    expectError(await sessionCall(t, 'POST', `/api/v1/keys/${rotatedAtOnce.id}/rotate`, user), 'conflict');
    expect(
      expectError(await sessionCall(t, 'POST', `/api/v1/keys/${inGrace.id}/rotate`, user), 'conflict').message,
    ).toContain(replacement.key.id);
    expect(
      await t.store.db.selectFrom('api_keys').select('id').where('account_id', '=', user.accountId).execute(),
    ).toHaveLength(before.length);
  });
});
