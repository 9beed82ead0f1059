import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signIn, signUp } from '../../harness/dashboard-session.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhooks: false });
});
afterAll(async () => t.close());

const idempotencyKey = (name: string) => ({ 'idempotency-key': `${name}-${Math.random().toString(36).slice(2)}` });

/**
 * Idempotency-Keys belong to the caller (the API key, or the dashboard user), so a replay never hands one caller the
 * answer another caller was authorized to get: the other caller's request runs, with its own checks.
 */
describe('Idempotency-Key: each caller has its own keys', () => {
  it("a channel-scoped key cannot replay an unscoped key's POST /webhooks (403, no webhook, no secret)", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    const headers = idempotencyKey('webhook');
    expectSuccess(await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }, headers), 201);
    const replay = await post(t.app, '/api/v1/webhooks', scoped.value, { url: PUBLIC_URL }, headers);
    expectError(replay, 'forbidden');
    expect(replay.headers['idempotency-replay']).toBeUndefined();
    expect(JSON.stringify(replay.body)).not.toContain('whsec_');
  });

  it('a channel-scoped key cannot replay a send to a channel outside its scope (403 channel_not_allowed)', async () => {
    const account = await t.newAccount({ channels: ['news', 'ops'] });
    const scoped = await account.key({ channels: ['news'] });
    const headers = idempotencyKey('send');
    const body = { channelCode: 'ops', title: 'Disk full' };
    expectSuccess(await post(t.app, '/api/v1/notifications', account.secretKey, body, headers), 201);
    const replay = await post(t.app, '/api/v1/notifications', scoped.value, body, headers);
    expectError(replay, 'channel_not_allowed');
    expect(replay.headers['idempotency-replay']).toBeUndefined();
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 1, quotaUsed: 1 });
  });

  it("a publishable key gets no replay of a secret key's request: it runs its own (and may not send at all)", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const headers = idempotencyKey('subscribe');
    const body = { channelCode: 'news', platform: 'android', token: tokens.android() };
    const first = await post(t.app, '/api/v1/subscribers', account.secretKey, body, headers);
    expect(first.statusCode).toBe(201);
    const own = await post(t.app, '/api/v1/subscribers', account.publishableKey, body, headers);
    // Its own request: the token is already registered, so 200 with the same subscriber, not a replayed 201.
    expect({ status: own.statusCode, replay: own.headers['idempotency-replay'], id: own.body.data.id }).toEqual({
      status: 200,
      replay: undefined,
      id: first.body.data.id,
    });

    const send = idempotencyKey('send');
    expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }, send),
      201,
    );
    expectError(
      await post(t.app, '/api/v1/notifications', account.publishableKey, { channelCode: 'news', title: 'Hi' }, send),
      'forbidden',
    );
  });

  it('another secret key of the account runs its own request', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const other = await account.key({ name: 'second' });
    const headers = idempotencyKey('keys');
    const first = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }, headers),
      201,
    );
    const again = await post(
      t.app,
      '/api/v1/notifications',
      other.value,
      { channelCode: 'news', title: 'Hi' },
      headers,
    );
    expect(again.headers['idempotency-replay']).toBeUndefined();
    expect(expectSuccess(again, 201).id).not.toBe(first.id);
    // The first key still replays its own.
    const replay = await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { channelCode: 'news', title: 'Hi' },
      headers,
    );
    expect({ replay: replay.headers['idempotency-replay'], id: replay.body.data.id }).toEqual({
      replay: 'true',
      id: first.id,
    });
  });

  it("a dashboard user's keys are theirs, across their sessions, and not an API key's", async () => {
    const user = await signUp(t);
    const headers = idempotencyKey('session');
    const first = expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'alerts' }, headers }),
      201,
    );
    const otherSession = await signIn(t, user.email, user.password);
    const replay = await sessionCall(t, 'POST', '/api/v1/channels', otherSession, {
      body: { code: 'alerts' },
      headers,
    });
    expect({ status: replay.statusCode, replay: replay.headers['idempotency-replay'], body: replay.body.data }).toEqual(
      { status: 201, replay: 'true', body: first },
    );

    const key = expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend' } }), 201);
    // The API key's own request runs: the code is taken.
    expectError(await post(t.app, '/api/v1/channels', key.key, { code: 'alerts' }, headers), 'conflict');
  });
});
