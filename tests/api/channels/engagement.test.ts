import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess, expectValidation } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const today = () => new Date(t.clock.now()).toISOString().slice(0, 10);

describe('GET /api/v1/channels/:code/engagement', () => {
  it('200: every day of the window, oldest first, today last; sends counted, canceled ones not', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    for (const title of ['One', 'Two'])
      expect(
        (await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title })).statusCode,
      ).toBe(201);
    const scheduled = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Later',
      sendAt: new Date(t.clock.now() + 3_600_000).toISOString(),
    });
    expect(
      (await post(t.app, `/api/v1/notifications/${scheduled.body.data.id}/cancel`, account.secretKey, {})).statusCode,
    ).toBe(200);
    expect(
      (await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'sport', title: 'Goal' }))
        .statusCode,
    ).toBe(201);

    const data = expectSuccess(await get(t.app, '/api/v1/channels/news/engagement', account.secretKey), 200);
    expect(data.channelCode).toBe('news');
    expect(data.days).toHaveLength(30);
    expect(data.days.at(-1)).toEqual({
      date: today(),
      notifications: 2,
      delivered: 0,
      received: 0,
      opened: 0,
      openRate: null,
    });
    expect(data.days[0].date).toBe(new Date(t.clock.now() - 29 * 86_400_000).toISOString().slice(0, 10));
    expect(data.days.slice(0, -1).every((day: any) => day.notifications === 0)).toBe(true);
    expect(data.totals).toEqual({ notifications: 2, delivered: 0, received: 0, opened: 0, openRate: null });

    const week = expectSuccess(await get(t.app, '/api/v1/channels/news/engagement?days=7', account.secretKey), 200);
    expect(week.days.map((day: any) => day.date).at(-1)).toBe(today());
    expect(week.days).toHaveLength(7);
    // The channel itself carries the last 30 days' summary.
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).engagement).toEqual(
      data.totals,
    );
    const listed = expectSuccess(await get(t.app, '/api/v1/channels', account.secretKey), 200);
    expect(listed.map((channel: any) => [channel.code, channel.engagement.notifications])).toEqual([
      ['news', 2],
      ['sport', 1],
    ]);
  });

  it.each([
    ['days=0', ['days']],
    ['days=91', ['days']],
    ['days=week', ['days']],
    ['from=2026-01-01', ['from']],
  ])('400 validation_failed for ?%s', async (query, fields) => {
    const account = await t.newAccount({ channels: ['news'] });
    expectValidation(await get(t.app, `/api/v1/channels/news/engagement?${query}`, account.secretKey), fields);
  });

  it('401 without a key', async () => {
    expectError(await get(t.app, '/api/v1/channels/news/engagement', null), 'unauthorized');
  });

  it('403 for a publishable key, and for a channel outside a scoped key', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    expectError(await get(t.app, '/api/v1/channels/news/engagement', account.publishableKey), 'forbidden');
    const scoped = await account.key({ channels: ['news'] });
    expectError(await get(t.app, '/api/v1/channels/sport/engagement', scoped.value), 'channel_not_allowed');
  });

  it("404 for a channel the account does not have, another account's included", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const other = await t.newAccount({ channels: ['private'] });
    expect(other.id).not.toBe(account.id);
    expectError(await get(t.app, '/api/v1/channels/private/engagement', account.secretKey), 'channel_not_found');
  });
});
