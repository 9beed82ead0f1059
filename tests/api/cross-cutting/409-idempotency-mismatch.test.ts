import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { callRoute, routeCases } from '../../harness/api-routes.ts';
import { post } from '../../harness/requests.ts';
import { startActivity } from '../../harness/live-activity-requests.ts';
import { subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** Per route: another valid body than the route case's own. */
const otherBodies: Record<string, (body: Record<string, unknown>) => unknown> = {
  '/api/v1/notifications': (body) => ({ ...body, title: 'Another title' }),
  '/api/v1/notify': (body) => ({ ...body, title: 'Another title' }),
  '/api/v1/live-activities': (body) => ({ ...body, fields: { title: 'Another', progress: 0.9 } }),
  '/api/v1/live-activities/:id/update': (body) => ({ ...body, fields: { progress: 0.7 } }),
  '/api/v1/live-activities/:id/end': (body) => ({ ...body, fields: { progress: 0.9 } }),
  '/api/v1/live-activities/:id/tokens': (body) => ({ ...body, token: tokens.ios() }),
  '/api/v1/subscribers': (body) => ({ ...body, token: tokens.android() }),
  '/api/v1/subscribers/:id/unsubscribe': () => ({ token: tokens.android() }),
  '/api/v1/channels': (body) => ({ ...body, name: 'Another name' }),
  '/api/v1/channels/:code/update': (body) => ({ ...body, name: 'Another name' }),
};

describe('Idempotency-Key → 409 idempotency_mismatch', () => {
  it.each(
    routeCases('news')
      .filter((route) => route.method === 'POST')
      .map((route) => [`${route.method} ${route.url}`, route] as const),
  )('%s: the same key with another body is refused, and changes nothing', async (_name, route) => {
    const account = await t.newAccount({ channels: ['news'] });
    const subscriber = await subscribe(t.app, account.publishableKey, 'news');
    const iosSubscriber = await subscribe(t.app, account.publishableKey, 'news', 'ios');
    const liveActivity = await startActivity(t.app, account.secretKey, 'news');
    const [target] = routeCases('news', { subscriber, iosSubscriber, liveActivity }).filter(
      (item) => item.url === route.url && item.method === 'POST',
    );
    const headers = { 'idempotency-key': `mismatch-${route.url}` };
    const first = await callRoute(t.app, target!, account.secretKey, { headers });
    expect(first.statusCode).toBeLessThan(300);
    const before = await accountState(t, account.id);
    const otherBody = otherBodies[route.url]!(target!.body as Record<string, unknown>);
    expectError(
      await callRoute(t.app, target!, account.secretKey, { headers, body: otherBody }),
      'idempotency_mismatch',
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('refuses the same key on another endpoint, even with an equivalent body', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const headers = { 'idempotency-key': 'cross-endpoint' };
    expect(
      (await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }, headers))
        .statusCode,
    ).toBe(201);
    expectError(
      await post(t.app, '/api/v1/notify', account.secretKey, { channel: 'news', title: 'Hi' }, headers),
      'idempotency_mismatch',
    );
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 1, quotaUsed: 1 });
  });

  it('keeps refusing the other body while replaying the first', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const headers = { 'idempotency-key': 'sticky' };
    const first = await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { channelCode: 'news', title: 'A' },
      headers,
    );
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'B' }, headers),
      'idempotency_mismatch',
    );
    const replay = await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { channelCode: 'news', title: 'A' },
      headers,
    );
    expect(replay.body).toEqual(first.body);
  });
});
