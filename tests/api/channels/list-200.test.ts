import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const codes = (response: { body: { data: Array<{ code: string }> } }) =>
  response.body.data.map((channel) => channel.code);

describe('GET /api/v1/channels → 200', () => {
  it('lists the channels in creation order with their subscriber counts', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    await subscribe(t.app, account.publishableKey, 'sport', 'ios');
    await subscribe(t.app, account.publishableKey, 'sport', 'web');
    const response = await get(t.app, '/api/v1/channels', account.secretKey);
    const data = expectSuccess(response, 200);
    expect(codes(response)).toEqual(['news', 'sport']);
    expect(data[1].subscriberCount).toEqual({ total: 2, ios: 1, android: 0, web: 1 });
    expect(response.body.nextCursor).toBeNull();
  });

  it('answers an empty list for an account without channels', async () => {
    const account = await t.newAccount();
    expect(expectSuccess(await get(t.app, '/api/v1/channels', account.secretKey), 200)).toEqual([]);
  });

  it('pages with limit and nextCursor', async () => {
    const account = await t.newAccount({ channels: ['c1', 'c2', 'c3'] });
    const first = await get(t.app, '/api/v1/channels?limit=2', account.secretKey);
    expect(codes(first)).toEqual(['c1', 'c2']);
    const second = await get(t.app, `/api/v1/channels?limit=2&cursor=${first.body.nextCursor}`, account.secretKey);
    expect(codes(second)).toEqual(['c3']);
    expect(second.body.nextCursor).toBeNull();
  });

  it('shows a scoped key only the channels of its scope', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport', 'weather'] });
    const scoped = await account.key({ channels: ['weather', 'news', 'ghost'] });
    expect(codes(await get(t.app, '/api/v1/channels', scoped.value))).toEqual(['news', 'weather']);
  });
});
