import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, subscribeDevice, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const key = (name: string) => ({ 'idempotency-key': `${name}-${Math.random().toString(36).slice(2)}` });

describe('Idempotency-Key: the same key and body replay the first response', () => {
  it('replays a send with Idempotency-Replay: true, storing one notification and charging one unit', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const headers = key('send');
    const first = await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { channelCode: 'news', title: 'Hi', body: 'There' },
      headers,
    );
    const data = expectSuccess(first, 201);
    expect(first.headers['idempotency-replay']).toBeUndefined();
    // The same JSON with its keys in another order is the same request.
    const again = await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { body: 'There', title: 'Hi', channelCode: 'news' },
      headers,
    );
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 1, quotaUsed: 1 });
    expect(
      expectSuccess(await get(t.app, '/api/v1/notifications', account.secretKey), 200).map(
        (item: { id: string }) => item.id,
      ),
    ).toEqual([data.id]);
  });

  it.each([
    [
      'POST /notify',
      '/api/v1/notify',
      () => ({ channel: 'news', title: 'Hi' }),
      201,
      { notifications: 1, quotaUsed: 1 },
    ],
    [
      'POST /live-activities',
      '/api/v1/live-activities',
      () => progressActivity('news'),
      201,
      { live_activities: 1, quotaUsed: 1 },
    ],
    [
      'POST /subscribers',
      '/api/v1/subscribers',
      () => ({ channelCode: 'news', platform: 'ios', token: tokens.ios() }),
      201,
      { subscribers: 1 },
    ],
    ['POST /channels', '/api/v1/channels', () => ({ code: 'fresh' }), 201, { channels: 2 }],
  ] as const)('replays %s', async (_name, url, makeBody, status, stored) => {
    const account = await t.newAccount({ channels: ['news'] });
    const body = makeBody();
    const headers = key('route');
    const first = await post(t.app, url, account.secretKey, body, headers);
    expect(first.statusCode).toBe(status);
    const again = await post(t.app, url, account.secretKey, body, headers);
    expect({ status: again.statusCode, replay: again.headers['idempotency-replay'], body: again.body }).toEqual({
      status,
      replay: 'true',
      body: first.body,
    });
    expect(await accountCounts(t, account.id)).toMatchObject(stored);
  });

  it('replays an unsubscribe with the response of the first call', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const { id, token } = await subscribeDevice(t.app, account.publishableKey, 'news');
    const headers = key('unsubscribe');
    const first = await post(
      t.app,
      `/api/v1/subscribers/${id}/unsubscribe`,
      account.publishableKey,
      { token },
      headers,
    );
    t.clock.advance(5000);
    const again = await post(
      t.app,
      `/api/v1/subscribers/${id}/unsubscribe`,
      account.publishableKey,
      { token },
      headers,
    );
    expect({ status: again.statusCode, replay: again.headers['idempotency-replay'], body: again.body }).toEqual({
      status: 200,
      replay: 'true',
      body: first.body,
    });
  });

  it('does not burn the key on a failed request (404 channel_not_found): fixed and retried, it runs', async () => {
    const account = await t.newAccount();
    const headers = key('retry');
    const body = { channelCode: 'later', title: 'Hi' };
    expectError(await post(t.app, '/api/v1/notifications', account.secretKey, body, headers), 'channel_not_found');
    expectSuccess(await post(t.app, '/api/v1/channels', account.secretKey, { code: 'later' }), 201);
    const retried = await post(t.app, '/api/v1/notifications', account.secretKey, body, headers);
    expectSuccess(retried, 201);
    expect(retried.headers['idempotency-replay']).toBeUndefined();
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 1, quotaUsed: 1 });
  });

  it('does not burn the key on a validation failure or a quota refusal', async () => {
    const account = await t.newAccount({ channels: ['news'], limit: 1 });
    const headers = key('fail');
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news' }, headers),
      'validation_failed',
    );
    await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'spends the quota' });
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }, headers),
      'quota_exceeded',
    );
    t.clock.set(Date.UTC(new Date(t.clock.now()).getUTCFullYear(), new Date(t.clock.now()).getUTCMonth() + 1, 1));
    expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }, headers),
      201,
    );
  });

  it('keeps keys per account: another account with the same key gets its own result', async () => {
    const first = await t.newAccount({ channels: ['news'] });
    const second = await t.newAccount({ channels: ['news'] });
    const headers = key('shared');
    const a = expectSuccess(
      await post(t.app, '/api/v1/notifications', first.secretKey, { channelCode: 'news', title: 'A' }, headers),
      201,
    );
    const b = await post(
      t.app,
      '/api/v1/notifications',
      second.secretKey,
      { channelCode: 'news', title: 'B' },
      headers,
    );
    expect(expectSuccess(b, 201).id).not.toBe(a.id);
    expect(b.headers['idempotency-replay']).toBeUndefined();
    expect(await accountCounts(t, second.id)).toMatchObject({ notifications: 1 });
  });

  it('forgets a key after 24 hours', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const headers = key('day');
    const first = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }, headers),
      201,
    );
    t.clock.advance(24 * 3_600_000 - 1);
    expect(
      (await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }, headers))
        .headers['idempotency-replay'],
    ).toBe('true');
    t.clock.advance(1);
    const later = await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { channelCode: 'news', title: 'Hi' },
      headers,
    );
    expect(expectSuccess(later, 201).id).not.toBe(first.id);
    expect(later.headers['idempotency-replay']).toBeUndefined();
  });

  it('is ignored on GET requests', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const headers = key('get');
    expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey, headers), 200);
    expect(
      (await get(t.app, '/api/v1/usage', account.secretKey, headers)).headers['idempotency-replay'],
    ).toBeUndefined();
  });
});
