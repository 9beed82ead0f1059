import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, patch, post } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications with an audience → 201', () => {
  it('counts only the targeted active subscribers of the channel, stores the audience and charges one send', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const alice = await subscribe(t.app, account.publishableKey, 'news', 'ios', { externalId: 'alice' });
    await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'alice' });
    await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'bob' });
    await subscribe(t.app, account.publishableKey, 'sport', 'android', { externalId: 'alice' });
    const gone = await subscribe(t.app, account.publishableKey, 'news', 'web', { externalId: 'alice' });
    expectSuccess(await post(t.app, `/api/v1/subscribers/${gone}/unsubscribe`, account.secretKey), 200);
    expectSuccess(await patch(t.app, `/api/v1/subscribers/${alice}`, account.secretKey, { tags: ['vip'] }), 200);
    const usedBefore = expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200).used;

    const byPerson = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'Hi',
        externalIds: ['alice', 'alice', 'zed'],
      }),
      201,
    );
    expect(byPerson).toMatchObject({
      recipientCount: 2,
      audience: { type: 'externalIds', count: 2 },
      stats: { pending: 2, skipped: 0 },
    });
    expect(expectSuccess(await get(t.app, `/api/v1/notifications/${byPerson.id}`, account.secretKey), 200)).toEqual(
      byPerson,
    );

    const byId = expectSuccess(
      await post(t.app, '/api/v1/notify', account.secretKey, {
        channel: 'news',
        title: 'Hi',
        subscriberIds: [alice, gone],
      }),
      201,
    );
    expect(byId).toMatchObject({
      channelCode: 'news',
      recipientCount: 1,
      audience: { type: 'subscriberIds', count: 2 },
    });

    const byTag = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'Hi',
        tags: { any: ['vip', 'vip'] },
      }),
      201,
    );
    expect(byTag).toMatchObject({ recipientCount: 1, audience: { type: 'tags', all: [], any: ['vip'] } });

    const whole = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      201,
    );
    expect(whole).toMatchObject({ recipientCount: 3, audience: null });
    expect(expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200).used).toBe(usedBefore + 4);
  });

  it("never counts another account's subscribers named by id", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const other = await t.newAccount({ channels: ['news'] });
    const theirs = await subscribe(t.app, other.publishableKey, 'news');
    expect(
      expectSuccess(
        await post(t.app, '/api/v1/notifications', account.secretKey, {
          channelCode: 'news',
          title: 'Hi',
          subscriberIds: [theirs],
        }),
        201,
      ).recipientCount,
    ).toBe(0);
  });

  it('takes 10,000 external ids', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'u9999' });
    const externalIds = Array.from({ length: 10_000 }, (_, n) => `u${n}`);
    expect(
      expectSuccess(
        await post(t.app, '/api/v1/notifications', account.secretKey, {
          channelCode: 'news',
          title: 'Hi',
          externalIds,
        }),
        201,
      ).recipientCount,
    ).toBe(1);
  });
});
