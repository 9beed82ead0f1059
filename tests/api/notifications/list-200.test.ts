import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ids = (response: { body: { data: Array<{ id: string }> } }) => response.body.data.map((item) => item.id);

describe('GET /api/v1/notifications → 200', () => {
  it('returns an empty page for a new account', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await get(t.app, '/api/v1/notifications', account.secretKey);
    expect(expectSuccess(response, 200)).toEqual([]);
    expect(response.body.nextCursor).toBeNull();
  });

  it('lists newest first and pages with limit and nextCursor until null', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const sent: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      sent.push(await send(t.app, account.secretKey, 'news', { title: `#${i}` }));
      t.clock.advance(1);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(
        t.app,
        `/api/v1/notifications?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        account.secretKey,
      );
      expectSuccess(response, 200);
      expect(response.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...ids(response));
      cursor = response.body.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...sent].reverse());
  });

  it('filters by channelCode and by status', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const news = await send(t.app, account.secretKey, 'news');
    const sport = await send(t.app, account.secretKey, 'sport');
    const later = await send(t.app, account.secretKey, 'sport', {
      sendAt: new Date(t.clock.now() + 3_600_000).toISOString(),
    });
    expect(ids(await get(t.app, '/api/v1/notifications?channelCode=news', account.secretKey))).toEqual([news]);
    expect(ids(await get(t.app, '/api/v1/notifications?channelCode=sport', account.secretKey)).sort()).toEqual(
      [sport, later].sort(),
    );
    expect(ids(await get(t.app, '/api/v1/notifications?status=scheduled', account.secretKey))).toEqual([later]);
    expect(ids(await get(t.app, '/api/v1/notifications?status=queued&channelCode=sport', account.secretKey))).toEqual([
      sport,
    ]);
    expect(ids(await get(t.app, '/api/v1/notifications?status=sent', account.secretKey))).toEqual([]);
  });

  it('shows a scoped key only the notifications of its channels', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const news = await send(t.app, account.secretKey, 'news');
    await send(t.app, account.secretKey, 'sport');
    const scoped = await account.key({ channels: ['news', 'not-created-yet'] });
    expect(ids(await get(t.app, '/api/v1/notifications', scoped.value))).toEqual([news]);
  });

  it('shows a key scoped to no existing channel an empty list', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await send(t.app, account.secretKey, 'news');
    const scoped = await account.key({ channels: ['ghost'] });
    expect(ids(await get(t.app, '/api/v1/notifications', scoped.value))).toEqual([]);
  });
});
