import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys/:id/revoke → 200', () => {
  it('revokes a key: the very next request with it is refused; revoking again changes nothing', async () => {
    const user = await signUp(t);
    const key = expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend' } }), 201);
    expect((await get(t.app, '/api/v1/usage', key.key)).statusCode).toBe(200);
    const revoked = expectSuccess(await sessionCall(t, 'POST', `/api/v1/keys/${key.id}/revoke`, user), 200);
    expect(revoked).toMatchObject({ id: key.id, status: 'revoked', revokedAt: new Date(t.clock.now()).toISOString() });
    expect(revoked.key).toBeUndefined();
    expectError(await get(t.app, '/api/v1/usage', key.key), 'unauthorized');

    t.clock.advance(5000);
    expect(expectSuccess(await sessionCall(t, 'POST', `/api/v1/keys/${key.id}/revoke`, user), 200)).toEqual(revoked);
  });
});
