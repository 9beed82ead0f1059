import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { joinKeyId } from '../../harness/join-pages.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels → 201', () => {
  it('creates a channel with zero subscribers, and GET returns it', async () => {
    const account = await t.newAccount();
    const data = expectSuccess(
      await post(t.app, '/api/v1/channels', account.secretKey, {
        code: 'breaking-news',
        name: 'Breaking news',
        description: 'As it happens',
      }),
      201,
    );
    expect(data).toMatchObject({
      id: expect.stringMatching(/^chn_[0-9a-z]{26}$/),
      code: 'breaking-news',
      name: 'Breaking news',
      description: 'As it happens',
      subscriberCount: { total: 0, ios: 0, android: 0, web: 0 },
      joinPage: false,
      joinUrl: null,
      frequencyCap: null,
      quietHours: null,
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/breaking-news', account.secretKey), 200)).toEqual(data);
  });

  it('takes a frequency cap and quiet hours at creation', async () => {
    const account = await t.newAccount();
    const cap = { count: 1, periodSeconds: 60 };
    const data = expectSuccess(
      await post(t.app, '/api/v1/channels', account.secretKey, {
        code: 'capped',
        frequencyCap: cap,
        quietHours: { start: '21:30', end: '08:00' },
      }),
      201,
    );
    expect(data.frequencyCap).toEqual(cap);
    expect(data.quietHours).toEqual({ start: '21:30', end: '08:00' });
  });

  it('switches the join page on at creation when asked, with its address', async () => {
    const account = await t.newAccount();
    const data = expectSuccess(
      await post(t.app, '/api/v1/channels', account.secretKey, { code: 'news', joinPage: true }),
      201,
    );
    expect(data).toMatchObject({
      joinPage: true,
      joinUrl: expect.stringMatching(new RegExp(`^${t.config.baseUrl}/join/[a-z0-9-]+/news$`)),
    });
    expect(await joinKeyId(t, account.id, 'news')).toMatch(/^key_/);
  });

  it('names the channel after its code when no name is given', async () => {
    const account = await t.newAccount();
    expect(expectSuccess(await post(t.app, '/api/v1/channels', account.secretKey, { code: 'x_1' }), 201)).toMatchObject(
      { code: 'x_1', name: 'x_1', description: null },
    );
  });

  it.each(['a', '0', 'a'.repeat(64), 'a-b_c-9'])('accepts the code "%s"', async (code) => {
    const account = await t.newAccount();
    expect(expectSuccess(await post(t.app, '/api/v1/channels', account.secretKey, { code }), 201).code).toBe(code);
  });

  it('lets two accounts use the same code', async () => {
    const first = await t.newAccount({ channels: ['news'] });
    const second = await t.newAccount();
    const data = expectSuccess(await post(t.app, '/api/v1/channels', second.secretKey, { code: 'news' }), 201);
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', first.secretKey), 200).id).not.toBe(data.id);
  });

  it('lets a scoped key create a channel named in its scope', async () => {
    const account = await t.newAccount();
    const scoped = await account.key({ channels: ['planned'] });
    expectSuccess(await post(t.app, '/api/v1/channels', scoped.value, { code: 'planned' }), 201);
    expectSuccess(await get(t.app, '/api/v1/channels/planned', scoped.value), 200);
  });
});
