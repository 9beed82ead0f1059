import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { subscribeWithWidget, widgetDispatchJobs } from './widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const reload = (key: string, channelCode: string, headers: Record<string, string> = {}) =>
  post(t.app, '/api/v1/widgets/reload', key, { channelCode }, headers);

describe('POST /api/v1/widgets/reload → 202', () => {
  it('queues one dispatch and counts the active iOS subscribers with a widget push token', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    await subscribeWithWidget(t, account.publishableKey, 'news');
    await subscribeWithWidget(t, account.publishableKey, 'news');
    await subscribe(t.app, account.publishableKey, 'news', 'ios');
    await subscribe(t.app, account.publishableKey, 'news', 'android');
    await subscribeWithWidget(t, account.publishableKey, 'sport');
    const response = await reload(account.secretKey, 'news');
    const data = expectSuccess(response, 202);
    expect(data).toEqual({
      id: expect.stringMatching(/^wrl_[0-9a-z]{26}$/),
      channelCode: 'news',
      recipientCount: 2,
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    expect(await widgetDispatchJobs(t, account.id)).toEqual([
      expect.objectContaining({ reloadId: data.id, accountId: account.id }),
    ]);
  });

  it('counts one against the monthly quota, like a notification', async () => {
    const account = await t.newAccount({ channels: ['news'], limit: 10 });
    const response = await reload(account.secretKey, 'news');
    expectSuccess(response, 202);
    expect(response.headers['x-quota-limit']).toBe('10');
    expect(response.headers['x-quota-remaining']).toBe('9');
    expect((await reload(account.secretKey, 'news')).headers['x-quota-remaining']).toBe('8');
  });

  it('is queued for a channel nobody can be reached on (recipientCount 0)', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expect(expectSuccess(await reload(account.secretKey, 'news'), 202).recipientCount).toBe(0);
  });

  it('replays the same answer for the same Idempotency-Key, queuing and charging once', async () => {
    const account = await t.newAccount({ channels: ['news'], limit: 10 });
    const first = await reload(account.secretKey, 'news', { 'idempotency-key': 'reload-1' });
    const again = await reload(account.secretKey, 'news', { 'idempotency-key': 'reload-1' });
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await widgetDispatchJobs(t, account.id)).toHaveLength(1);
    expect((await reload(account.secretKey, 'news')).headers['x-quota-remaining']).toBe('8');
  });
});
