import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys/:id/rotate → 409 conflict for all but one of concurrent rotations', () => {
  it.each([2, 5])('of %i rotations sent at once, one answers 201 and the others 409', async (count) => {
    const user = await signUp(t);
    const key = expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend' } }), 201);
    const responses = await Promise.all(
      Array.from({ length: count }, () =>
        sessionCall(t, 'POST', `/api/v1/keys/${key.id}/rotate`, user, { body: { graceSeconds: 600 } }),
      ),
    );
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(1);
    for (const response of responses.filter((item) => item.statusCode !== 201)) expectError(response, 'conflict');
    const rows = await t.store.db
      .selectFrom('api_keys')
      .select(['id', 'replaced_by'])
      .where('account_id', '=', user.accountId)
      .where('name', '=', 'backend')
      .execute();
    const winner = responses.find((response) => response.statusCode === 201)!.body.data.key.id;
    expect(rows.map((row) => row.id).sort()).toEqual([key.id, winner].sort());
    expect(rows.find((row) => row.id === key.id)?.replaced_by).toBe(winner);
  });
});
