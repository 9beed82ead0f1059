import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const register = (key: string, body: Record<string, unknown>) => post(t.app, '/api/v1/subscribers', key, body);

describe('POST /api/v1/subscribers → 201', () => {
  it.each([
    ['an iOS device', 'ios', () => ({ token: tokens.ios(), pushToStartToken: tokens.ios() })],
    ['an iOS device with an upper-case token', 'ios', () => ({ token: tokens.ios().toUpperCase() })],
    ['an Android device', 'android', () => ({ token: tokens.android() })],
    ['a browser', 'web', () => ({ token: tokens.web() })],
    [
      'a device with timezone, locale and externalId',
      'android',
      () => ({ token: tokens.android(), timezone: 'Europe/Berlin', locale: 'de-DE', externalId: 'user-42' }),
    ],
    ['a device in UTC', 'android', () => ({ token: tokens.android(), timezone: 'UTC' })],
    [
      'a device at a fixed offset (Etc/GMT+8 is UTC−8)',
      'android',
      () => ({ token: tokens.android(), timezone: 'Etc/GMT+8' }),
    ],
  ] as const)('registers %s with the publishable key', async (_name, platform, extra) => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await register(account.publishableKey, { channelCode: 'news', platform, ...extra() });
    const now = new Date(t.clock.now()).toISOString();
    expect(expectSuccess(response, 201)).toMatchObject({
      id: expect.stringMatching(/^sub_[0-9a-z]{26}$/),
      channelCode: 'news',
      platform,
      status: 'active',
      unsubscribeReason: null,
      createdAt: now,
      unsubscribedAt: null,
    });
    expect(JSON.stringify(response.body)).not.toMatch(/token/i);
  });

  it('registers with a secret key too, and counts the subscriber in the channel', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(
      await register(account.secretKey, { channelCode: 'news', platform: 'web', token: tokens.web() }),
      201,
    );
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).subscriberCount).toEqual({
      total: 1,
      ios: 0,
      android: 0,
      web: 1,
    });
  });

  it('keeps a push-to-start token per template beside the one reported without a template, and the osVersion', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const device = tokens.ios();
    const [untemplated, timer, progress] = [tokens.ios(), tokens.ios(), tokens.ios()];
    const id = expectSuccess(
      await register(account.publishableKey, {
        channelCode: 'news',
        platform: 'ios',
        token: device,
        pushToStartToken: untemplated,
        osVersion: '18.2',
      }),
      201,
    ).id;
    // Each type's token in its own call, as the app's pushToStartTokenUpdates loops report them.
    await register(account.publishableKey, {
      channelCode: 'news',
      platform: 'ios',
      token: device,
      pushToStartToken: timer,
      template: 'timer',
      osVersion: '18.2',
    });
    await register(account.publishableKey, {
      channelCode: 'news',
      platform: 'ios',
      token: device,
      pushToStartToken: progress,
      template: 'progress',
      osVersion: '18.2',
    });
    const row = await t.store.db
      .selectFrom('subscribers')
      .select(['push_to_start_token', 'os_version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ push_to_start_token: untemplated, os_version: '18.2' });
    const templated = await t.store.db
      .selectFrom('push_to_start_tokens')
      .select(['template', 'token'])
      .where('subscriber_id', '=', id)
      .orderBy('template')
      .execute();
    expect(templated).toEqual([
      { template: 'progress', token: progress },
      { template: 'timer', token: timer },
    ]);
  });

  it('records subscriber.created', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const data = expectSuccess(
      await register(account.publishableKey, {
        channelCode: 'news',
        platform: 'android',
        token: tokens.android(),
        externalId: 'u1',
      }),
      201,
    );
    const events = await listEvents(t.store.db, account.id);
    expect(events).toEqual([
      {
        id: expect.any(String),
        type: 'subscriber.created',
        data: expect.objectContaining({
          subscriberId: data.id,
          channelCode: 'news',
          platform: 'android',
          externalId: 'u1',
        }),
      },
    ]);
  });

  it('answers 201 with the same id when an unsubscribed token registers again (reactivation)', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const token = tokens.android();
    const first = expectSuccess(
      await register(account.publishableKey, { channelCode: 'news', platform: 'android', token }),
      201,
    );
    expectSuccess(
      await post(t.app, `/api/v1/subscribers/${first.id}/unsubscribe`, account.publishableKey, { token }),
      200,
    );
    const again = expectSuccess(
      await register(account.publishableKey, { channelCode: 'news', platform: 'android', token }),
      201,
    );
    expect(again).toMatchObject({ id: first.id, status: 'active', unsubscribeReason: null, unsubscribedAt: null });
    expect((await listEvents(t.store.db, account.id)).map((event) => event.type)).toEqual([
      'subscriber.created',
      'subscriber.unsubscribed',
      'subscriber.created',
    ]);
  });

  it('treats the same token in another channel or on another platform as another subscriber', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const token = tokens.ios();
    const news = expectSuccess(
      await register(account.publishableKey, { channelCode: 'news', platform: 'ios', token }),
      201,
    );
    const sport = expectSuccess(
      await register(account.publishableKey, { channelCode: 'sport', platform: 'ios', token }),
      201,
    );
    const android = expectSuccess(
      await register(account.publishableKey, { channelCode: 'news', platform: 'android', token }),
      201,
    );
    expect(new Set([news.id, sport.id, android.id]).size).toBe(3);
  });
});
