import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findApiKey } from '../../../src/store/api-keys-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { accountSlug, joinKeyId, switchJoinPage } from '../../harness/join-pages.ts';
import { get, post } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels/:code/update → 200', () => {
  it('changes the name and description, keeps what is left out, and clears the description with null', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await subscribe(t.app, account.publishableKey, 'news', 'web');
    const renamed = expectSuccess(
      await post(t.app, '/api/v1/channels/news/update', account.secretKey, {
        name: 'Daily news',
        description: 'Headlines at 7',
      }),
      200,
    );
    expect(renamed).toMatchObject({
      code: 'news',
      name: 'Daily news',
      description: 'Headlines at 7',
      joinPage: false,
      joinUrl: null,
      subscriberCount: { total: 1, web: 1 },
    });
    expect(expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, {}), 200)).toMatchObject({
      name: 'Daily news',
      description: 'Headlines at 7',
    });
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { description: null }), 200),
    ).toMatchObject({ name: 'Daily news', description: null });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200)).toMatchObject({
      name: 'Daily news',
      description: null,
    });
  });

  it('sets a frequency cap, shows it on the channel and in the list, keeps it when left out, removes it with null', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const cap = { count: 3, periodSeconds: 86_400 };
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { frequencyCap: cap }), 200),
    ).toMatchObject({ code: 'news', frequencyCap: cap });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).frequencyCap).toEqual(cap);
    expect(expectSuccess(await get(t.app, '/api/v1/channels', account.secretKey), 200)[0].frequencyCap).toEqual(cap);
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { name: 'News' }), 200),
    ).toMatchObject({ name: 'News', frequencyCap: cap });
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { frequencyCap: null }), 200),
    ).toMatchObject({ frequencyCap: null });
  });

  it('sets quiet hours, shows them, keeps them when left out, removes them with null', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const quiet = { start: '22:00', end: '07:00' };
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { quietHours: quiet }), 200),
    ).toMatchObject({ quietHours: quiet });
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { name: 'News' }), 200),
    ).toMatchObject({ name: 'News', quietHours: quiet });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).quietHours).toEqual(quiet);
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { quietHours: null }), 200),
    ).toMatchObject({ quietHours: null });
  });

  it('turns the join page on with a publishable key scoped to the channel, and off again by revoking it', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const slug = await accountSlug(t, account.id);
    const on = await switchJoinPage(t, account, 'news', true);
    expect(on).toMatchObject({ joinPage: true, joinUrl: `${t.config.baseUrl}/join/${slug}/news` });
    const keyId = (await joinKeyId(t, account.id, 'news'))!;
    const key = (await findApiKey(t.store.db, keyId))!;
    expect(key).toMatchObject({
      account_id: account.id,
      kind: 'publishable',
      channel_scope: '["news"]',
      name: 'Join page: news',
      revoked_at: null,
    });

    // On again: the same key (the page's address and key stay stable).
    await switchJoinPage(t, account, 'news', true);
    expect(await joinKeyId(t, account.id, 'news')).toBe(keyId);

    expect(await switchJoinPage(t, account, 'news', false)).toMatchObject({ joinPage: false, joinUrl: null });
    expect(await joinKeyId(t, account.id, 'news')).toBeNull();
    expect((await findApiKey(t.store.db, keyId))!.revoked_at).toEqual(expect.any(Number));
    // Off again changes nothing.
    expect(await switchJoinPage(t, account, 'news', false)).toMatchObject({ joinPage: false });
  });

  it('issues a fresh key when the page is on but its key was revoked on the keys page', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await switchJoinPage(t, account, 'news', true);
    const first = (await joinKeyId(t, account.id, 'news'))!;
    await t.store.db.updateTable('api_keys').set({ revoked_at: t.clock.now() }).where('id', '=', first).execute();
    await switchJoinPage(t, account, 'news', true);
    const second = await joinKeyId(t, account.id, 'news');
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
  });

  it('leaves one working join key when the page is switched on several times at once', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(t.app, '/api/v1/channels/news/update', account.secretKey, { joinPage: true }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(200));
    const keys = await t.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', account.id)
      .where('name', '=', 'Join page: news')
      .execute();
    expect(keys).toHaveLength(1);
    expect(await joinKeyId(t, account.id, 'news')).toBe(keys[0]!.id);
  });

  it('lists and shows the switch and address on every channel view', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    await switchJoinPage(t, account, 'sport', true);
    const list = (await get(t.app, '/api/v1/channels', account.secretKey)).body.data;
    expect(list.map((channel: any) => [channel.code, channel.joinPage])).toEqual([
      ['news', false],
      ['sport', true],
    ]);
    expect(list[1].joinUrl).toMatch(/\/join\/[a-z0-9-]+\/sport$/);
  });

  it('is allowed to a key scoped to the channel', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', scoped.value, { name: 'News' }), 200).name,
    ).toBe('News');
  });
});
