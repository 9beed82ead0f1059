import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/domain/api-key-secret.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/keys → 201', () => {
  it('creates a secret key for every channel, shows its value once, and the key works at once', async () => {
    const user = await signUp(t);
    const response = await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: ' backend ' } });
    const data = expectSuccess(response, 201);
    expect(data).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'backend',
      kind: 'secret',
      start: data.key.slice(0, 11),
      channels: null,
      status: 'active',
      createdAt: new Date(t.clock.now()).toISOString(),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
      replacedBy: null,
      key: expect.stringMatching(/^clr_sk_[A-Za-z0-9_-]{32}$/),
    });
    expect(response.headers['cache-control']).toBe('no-store');
    // Stored as a hash only; the list never shows the value again.
    const row = await t.store.db.selectFrom('api_keys').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(data.key));
    expect(JSON.stringify(row)).not.toContain(data.key);
    expect(JSON.stringify((await sessionCall(t, 'GET', '/api/v1/keys', user)).body)).not.toContain(data.key);
    expect(expectSuccess(await get(t.app, '/api/v1/usage', data.key), 200).plan).toBe('free');
  });

  it('creates a publishable key scoped to chosen channels, which works only within them and only for subscribers', async () => {
    const user = await signUp(t);
    for (const code of ['news', 'sport']) await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code } });
    const data = expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/keys', user, {
        body: { name: 'ios-app', kind: 'publishable', channels: ['news', 'news'] },
      }),
      201,
    );
    expect(data).toMatchObject({ kind: 'publishable', channels: ['news'], key: expect.stringMatching(/^clr_pk_/) });
    expect(
      (
        await post(t.app, '/api/v1/subscribers', data.key, {
          channelCode: 'news',
          platform: 'android',
          token: 'fcm-token-1234567890',
        })
      ).statusCode,
    ).toBe(201);
    expectError(
      await post(t.app, '/api/v1/subscribers', data.key, {
        channelCode: 'sport',
        platform: 'android',
        token: 'fcm-token-1234567890',
      }),
      'channel_not_allowed',
    );
    expectError(await post(t.app, '/api/v1/notifications', data.key, { channelCode: 'news', title: 'x' }), 'forbidden');
  });
});
