import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, patch, post } from '../../harness/requests.ts';
import { subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/subscribers → 200', () => {
  it('lists subscribers newest first with their details, never the token beyond a short prefix', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const iosToken = tokens.ios();
    const first = expectSuccess(
      await post(t.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'news',
        platform: 'ios',
        token: iosToken,
        externalId: 'alice',
        timezone: 'Europe/Berlin',
        locale: 'de-DE',
      }),
      201,
    ).id;
    t.clock.advance(1000);
    const second = await subscribe(t.app, account.publishableKey, 'sport', 'web');
    const response = await get(t.app, '/api/v1/subscribers', account.secretKey);
    const data = expectSuccess(response, 200);
    expect(response.body.nextCursor).toBeNull();
    expect(data.map((row: any) => row.id)).toEqual([second, first]);
    expect(data[1]).toEqual({
      id: first,
      channelCode: 'news',
      platform: 'ios',
      status: 'active',
      unsubscribeReason: null,
      createdAt: expect.any(String),
      unsubscribedAt: null,
      externalId: 'alice',
      tags: [],
      timezone: 'Europe/Berlin',
      locale: 'de-DE',
      tokenPrefix: `${iosToken.slice(0, 8)}…`,
      updatedAt: expect.any(String),
      lastDeliveredAt: null,
      lastFailure: null,
      environment: null,
      widgetPushEnabled: false,
    });
    expect(data[0].tokenPrefix).toBe('https://push.example.net/…');
    expect(JSON.stringify(response.body)).not.toContain(iosToken);
    expect(JSON.stringify(response.body)).not.toContain('/send/');
  });

  it('filters by channel, platform, status, externalId, tag and creation time', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const start = t.clock.now();
    const alice = await subscribe(t.app, account.publishableKey, 'news', 'ios', { externalId: 'alice' });
    t.clock.advance(1000);
    const bob = await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'bob' });
    t.clock.advance(1000);
    const carol = await subscribe(t.app, account.publishableKey, 'sport', 'android', { externalId: 'carol' });
    expectSuccess(await post(t.app, `/api/v1/subscribers/${bob}/unsubscribe`, account.secretKey), 200);
    expectSuccess(await patch(t.app, `/api/v1/subscribers/${carol}`, account.secretKey, { tags: ['beta'] }), 200);
    const ids = async (query: string) =>
      expectSuccess(await get(t.app, `/api/v1/subscribers?${query}`, account.secretKey), 200).map((row: any) => row.id);
    expect(await ids('channelCode=news')).toEqual([bob, alice]);
    expect(await ids('platform=android')).toEqual([carol, bob]);
    expect(await ids('status=unsubscribed')).toEqual([bob]);
    expect(await ids('externalId=alice')).toEqual([alice]);
    expect(await ids('tag=beta')).toEqual([carol]);
    expect(await ids(`createdAfter=${new Date(start).toISOString()}`)).toEqual([carol, bob]);
    expect(await ids(`createdBefore=${new Date(start + 1000).toISOString()}`)).toEqual([alice]);
    expect(await ids('channelCode=news&platform=ios&status=active')).toEqual([alice]);
    expect(await ids(`idPrefix=${carol.slice(0, 20)}`)).toEqual(expect.arrayContaining([carol]));
    expect(await ids(`idPrefix=${carol}`)).toEqual([carol]);
  });

  it('pages with the cursor', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const made: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      made.unshift(await subscribe(t.app, account.publishableKey, 'news'));
      t.clock.advance(10);
    }
    const first = await get(t.app, '/api/v1/subscribers?limit=2', account.secretKey);
    expect(expectSuccess(first, 200).map((row: any) => row.id)).toEqual(made.slice(0, 2));
    const second = await get(t.app, `/api/v1/subscribers?limit=2&cursor=${first.body.nextCursor}`, account.secretKey);
    expect(expectSuccess(second, 200).map((row: any) => row.id)).toEqual(made.slice(2));
    expect(second.body.nextCursor).toBeNull();
  });

  it("shows a scoped key only its channels, and never another account's subscribers", async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const news = await subscribe(t.app, account.publishableKey, 'news');
    await subscribe(t.app, account.publishableKey, 'sport');
    const other = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, other.publishableKey, 'news');
    const scoped = await account.key({ channels: ['news'] });
    expect(expectSuccess(await get(t.app, '/api/v1/subscribers', scoped.value), 200).map((row: any) => row.id)).toEqual(
      [news],
    );
    expect(expectSuccess(await get(t.app, '/api/v1/subscribers', account.secretKey), 200)).toHaveLength(2);
  });
});
