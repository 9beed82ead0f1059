import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, send, subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const used = async (key: string) => expectSuccess(await get(t.app, '/api/v1/usage', key), 200).used as number;

describe('quota counting (docs/design.md 2.7)', () => {
  it('counts one per notification and one per Live Activity start, whatever the number of recipients', async () => {
    const account = await t.newAccount({ channels: ['big', 'empty'] });
    for (let i = 0; i < 5; i += 1) await subscribe(t.app, account.publishableKey, 'big', 'android');
    await subscribe(t.app, account.publishableKey, 'big', 'ios', { pushToStartToken: tokens.ios() });
    await send(t.app, account.secretKey, 'big');
    expect(await used(account.secretKey)).toBe(1);
    await send(t.app, account.secretKey, 'empty');
    expect(await used(account.secretKey)).toBe(2);
    const started = expectSuccess(
      await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('big')),
      201,
    );
    expect(started.recipientCount).toBe(6);
    expect(await used(account.secretKey)).toBe(3);
  });

  it('counts a scheduled notification when it is accepted', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await send(t.app, account.secretKey, 'news', { sendAt: new Date(t.clock.now() + 30 * 86_400_000).toISOString() });
    expect(await used(account.secretKey)).toBe(1);
  });

  it('counts nothing for refused requests', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news' });
    await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'ghost', title: 'Hi' });
    await post(t.app, '/api/v1/notifications', account.publishableKey, { channelCode: 'news', title: 'Hi' });
    await post(t.app, '/api/v1/live-activities', account.secretKey, {
      ...progressActivity('news'),
      fields: { title: 'x', progress: 45 },
    });
    expect(await used(account.secretKey)).toBe(0);
  });

  it('starts afresh with the next UTC calendar month', async () => {
    const account = await t.newAccount({ channels: ['news'], plan: 'free', limit: 2 });
    await send(t.app, account.secretKey, 'news');
    await send(t.app, account.secretKey, 'news');
    const spent = expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      'quota_exceeded',
    );
    const before = expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200);
    expect(spent.details.resetsAt).toBe(before.resetsAt);

    t.clock.set(Date.parse(before.resetsAt) - 1);
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      'quota_exceeded',
    );
    t.clock.set(Date.parse(before.resetsAt));
    const after = expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200);
    expect(after).toMatchObject({ used: 0, remaining: 2, periodStart: before.resetsAt });
    expect(Date.parse(after.resetsAt)).toBeGreaterThan(Date.parse(before.resetsAt));
    expect(new Date(after.resetsAt).getUTCDate()).toBe(1);
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'New month',
    });
    expectSuccess(response, 201);
    expect(response.headers['x-quota-remaining']).toBe('1');
  });
});
