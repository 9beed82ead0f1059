import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, send, subscribeDevice, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let account: TestAccount;
/** Secret and publishable keys scoped to "news" in an account with "news" and "sport". */
let secret: string;
let publishable: string;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.newAccount({ channels: ['news', 'sport'] });
  secret = (await account.key({ channels: ['news'] })).value;
  publishable = (await account.key({ kind: 'publishable', channels: ['news'] })).value;
});
afterAll(async () => t.close());

/** Every request that names a channel, aimed at `code`. */
const namingRequests = (code: string) =>
  [
    ['send', () => post(t.app, '/api/v1/notifications', secret, { channelCode: code, title: 'Hi' })],
    ['notify', () => post(t.app, '/api/v1/notify', secret, { channel: code, title: 'Hi' })],
    ['start a Live Activity', () => post(t.app, '/api/v1/live-activities', secret, progressActivity(code))],
    [
      'register a subscriber (publishable)',
      () =>
        post(t.app, '/api/v1/subscribers', publishable, {
          channelCode: code,
          platform: 'android',
          token: tokens.android(),
        }),
    ],
    [
      'register a subscriber (secret)',
      () => post(t.app, '/api/v1/subscribers', secret, { channelCode: code, platform: 'web', token: tokens.web() }),
    ],
    ['get the channel', () => get(t.app, `/api/v1/channels/${code}`, secret)],
    ['create the channel', () => post(t.app, '/api/v1/channels', secret, { code })],
    ['list notifications of the channel', () => get(t.app, `/api/v1/notifications?channelCode=${code}`, secret)],
  ] as const;

describe('keys scoped to channels', () => {
  it.each(['sport', 'not-created'])(
    'answer channel_not_allowed for "%s" on every request that names it (whether or not it exists), changing nothing',
    async (code) => {
      const before = await accountState(t, account.id);
      for (const [name, request] of namingRequests(code)) {
        const response = await request();
        expect(response.statusCode, name).toBe(403);
        expect(expectError(response, 'channel_not_allowed').details, name).toEqual({ channelCode: code });
      }
      expect(await accountState(t, account.id)).toEqual(before);
    },
  );

  it('work on the channel in their scope', async () => {
    expectSuccess(await post(t.app, '/api/v1/notifications', secret, { channelCode: 'news', title: 'Hi' }), 201);
    expectSuccess(await post(t.app, '/api/v1/live-activities', secret, progressActivity('news')), 201);
    expectSuccess(
      await post(t.app, '/api/v1/subscribers', publishable, {
        channelCode: 'news',
        platform: 'android',
        token: tokens.android(),
      }),
      201,
    );
    expectSuccess(await get(t.app, '/api/v1/channels/news', secret), 200);
  });

  it('see lists filtered to their scope', async () => {
    const inScope = await send(t.app, account.secretKey, 'news');
    const outOfScope = await send(t.app, account.secretKey, 'sport');
    const listed = expectSuccess(await get(t.app, '/api/v1/notifications?limit=100', secret), 200).map(
      (item: { id: string }) => item.id,
    );
    expect(listed).toContain(inScope);
    expect(listed).not.toContain(outOfScope);
    const all = expectSuccess(await get(t.app, '/api/v1/notifications?limit=100', account.secretKey), 200).map(
      (item: { id: string }) => item.id,
    );
    expect(all).toContain(outOfScope);
    expect(
      expectSuccess(await get(t.app, '/api/v1/channels', secret), 200).map((channel: { code: string }) => channel.code),
    ).toEqual(['news']);
  });

  it('get not_found for resources by id in channels outside their scope', async () => {
    const notification = await send(t.app, account.secretKey, 'sport');
    expectError(await get(t.app, `/api/v1/notifications/${notification}`, secret), 'not_found');
    const subscriber = await subscribeDevice(t.app, account.publishableKey, 'sport');
    const before = await accountState(t, account.id);
    for (const key of [secret, publishable])
      expectError(
        await post(t.app, `/api/v1/subscribers/${subscriber.id}/unsubscribe`, key, { token: subscriber.token }),
        'not_found',
      );
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('may unsubscribe subscribers of their own channel', async () => {
    const subscriber = await subscribeDevice(t.app, account.publishableKey, 'news');
    expect(
      expectSuccess(
        await post(t.app, `/api/v1/subscribers/${subscriber.id}/unsubscribe`, publishable, { token: subscriber.token }),
        200,
      ).status,
    ).toBe('unsubscribed');
  });

  it('with an empty scope may use no channel at all', async () => {
    const none = (await account.key({ channels: [] })).value;
    expectError(
      await post(t.app, '/api/v1/notifications', none, { channelCode: 'news', title: 'Hi' }),
      'channel_not_allowed',
    );
    expect(expectSuccess(await get(t.app, '/api/v1/channels', none), 200)).toEqual([]);
    expect(expectSuccess(await get(t.app, '/api/v1/notifications', none), 200)).toEqual([]);
  });
});
