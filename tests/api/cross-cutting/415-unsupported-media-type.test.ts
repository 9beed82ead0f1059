import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { rawRequest, routeCases } from '../../harness/api-routes.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const contentTypes: Array<[string, Record<string, string>]> = [
  ['text/plain', { 'content-type': 'text/plain' }],
  ['text/plain; charset=utf-8', { 'content-type': 'text/plain; charset=utf-8' }],
  ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }],
  ['application/xml', { 'content-type': 'application/xml' }],
  ['application/vnd.api+json', { 'content-type': 'application/vnd.api+json' }],
  ['no Content-Type at all', {}],
];

describe('every POST and PATCH route → 415 unsupported_media_type for a body that is not application/json', () => {
  it.each(
    routeCases('news')
      .filter((route) => route.method === 'POST' || route.method === 'PATCH')
      .map((route) => [`${route.method} ${route.url}`, route] as const),
  )('%s refuses every other content type, and stores nothing', async (_name, route) => {
    const account = await t.newAccount({ channels: ['news'] });
    const subscriber = await subscribe(t.app, account.publishableKey, 'news');
    const path = route.path.replace(/sub_[0-9a-z]+/, subscriber);
    const before = await accountState(t, account.id);
    for (const [label, headers] of contentTypes) {
      const response = await rawRequest(
        t.app,
        route.method,
        path,
        account.secretKey,
        JSON.stringify(route.body ?? {}),
        headers,
      );
      expect(response.statusCode, label).toBe(415);
      expectError(response, 'unsupported_media_type');
    }
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('accepts application/json with a charset parameter and in any letter case', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const response = await rawRequest(
        t.app,
        'POST',
        '/api/v1/notifications',
        account.secretKey,
        '{"channelCode":"news","title":"Hi"}',
        { 'content-type': type },
      );
      expect(response.statusCode, type).toBe(201);
    }
  });
});
