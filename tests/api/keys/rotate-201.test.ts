import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys/:id/rotate → 201', () => {
  it('issues a new value with the same name, kind and scope; the old one works through the grace period, then not', async () => {
    const user = await signUp(t);
    await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news' } });
    const old = expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend', channels: ['news'] } }),
      201,
    );
    const response = await sessionCall(t, 'POST', `/api/v1/keys/${old.id}/rotate`, user, {
      body: { graceSeconds: 3600 },
    });
    const data = expectSuccess(response, 201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(data.key).toMatchObject({
      name: 'backend',
      kind: 'secret',
      channels: ['news'],
      status: 'active',
      key: expect.stringMatching(/^clr_sk_/),
    });
    expect(data.key.key).not.toBe(old.key);
    expect(data.replaced).toMatchObject({
      id: old.id,
      status: 'active',
      replacedBy: data.key.id,
      expiresAt: new Date(t.clock.now() + 3_600_000).toISOString(),
    });
    expect(data.replaced.key).toBeUndefined();

    for (const key of [old.key, data.key.key])
      expect((await post(t.app, '/api/v1/notifications', key, { channelCode: 'news', title: 'x' })).statusCode).toBe(
        201,
      );
    t.clock.advance(3_600_000);
    expectError(await get(t.app, '/api/v1/usage', old.key), 'unauthorized');
    expect((await get(t.app, '/api/v1/usage', data.key.key)).statusCode).toBe(200);
  });

  it('expires the old value at once without a body (grace 0)', async () => {
    const user = await signUp(t);
    const old = expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend' } }), 201);
    const data = expectSuccess(await sessionCall(t, 'POST', `/api/v1/keys/${old.id}/rotate`, user), 201);
    expect(data.replaced).toMatchObject({ status: 'expired', expiresAt: new Date(t.clock.now()).toISOString() });
    expectError(await get(t.app, '/api/v1/usage', old.key), 'unauthorized');
  });

  it('accepts the longest grace, 7 days', async () => {
    const user = await signUp(t);
    const old = expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend' } }), 201);
    expectSuccess(
      await sessionCall(t, 'POST', `/api/v1/keys/${old.id}/rotate`, user, { body: { graceSeconds: 604_800 } }),
      201,
    );
  });
});
