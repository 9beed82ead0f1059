import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, expectValidation } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys/:id/rotate → 400 validation_failed', () => {
  it.each([
    ['a grace over 7 days', { graceSeconds: 604_801 }],
    ['a negative grace', { graceSeconds: -1 }],
    ['a fractional grace', { graceSeconds: 1.5 }],
    ['grace as text', { graceSeconds: '1h' }],
  ])('refuses %s, and the key is not rotated', async (_name, body) => {
    const user = await signUp(t);
    const key = expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'k' } }), 201);
    expectValidation(await sessionCall(t, 'POST', `/api/v1/keys/${key.id}/rotate`, user, { body }), ['graceSeconds']);
    const rows = await t.store.db.selectFrom('api_keys').selectAll().where('account_id', '=', user.accountId).execute();
    expect(rows.map((row) => [row.id, row.expires_at, row.replaced_by])).toEqual([[key.id, null, null]]);
  });
});
