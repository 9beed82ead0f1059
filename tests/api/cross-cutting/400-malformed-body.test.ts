import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../src/http/error-catalog.ts';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { rawRequest, routeCases, type RouteCase } from '../../harness/api-routes.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** The route's valid body with every leaf value replaced, as JSON text (so leaves may be raw tokens like 1e400). */
function withLeaves(route: RouteCase, raw: string): string {
  const map = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(map)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, map(item)]))
        : '__LEAF__';
  return JSON.stringify(map(route.body ?? { note: 'x' })).replaceAll('"__LEAF__"', raw);
}

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/**
 * Each row: a body and the error every route with a JSON object body must answer. A route whose body may be left out
 * (POST /subscribers/:id/unsubscribe) takes an empty body as none (200); every other row is the same for it.
 */
const rows: Array<{
  name: string;
  payload: (route: RouteCase) => string;
  expected: ErrorCode;
  optionalBody?: 'accepted';
}> = [
  { name: 'invalid JSON', payload: () => '{"channelCode": "news", ', expected: 'invalid_json' },
  { name: 'a bare word', payload: () => 'hello', expected: 'invalid_json' },
  { name: 'an empty body', payload: () => '', expected: 'invalid_json', optionalBody: 'accepted' },
  { name: 'a JSON array', payload: () => '[]', expected: 'validation_failed' },
  { name: 'a JSON string', payload: () => '"a string"', expected: 'validation_failed' },
  { name: 'a JSON number', payload: () => '42', expected: 'validation_failed' },
  { name: 'JSON null', payload: () => 'null', expected: 'validation_failed' },
  {
    name: 'every field an object',
    payload: (route) => withLeaves(route, '{"a":[1,{"b":null}]}'),
    expected: 'validation_failed',
  },
  { name: 'every field an array', payload: (route) => withLeaves(route, '["x"]'), expected: 'validation_failed' },
  { name: 'every field a boolean', payload: (route) => withLeaves(route, 'true'), expected: 'validation_failed' },
  {
    name: 'every field a huge number (1e400)',
    payload: (route) => withLeaves(route, '1e400'),
    expected: 'validation_failed',
  },
  {
    name: 'every field a 30-digit integer',
    payload: (route) => withLeaves(route, '123456789012345678901234567890'),
    expected: 'validation_failed',
  },
  { name: 'every field null', payload: (route) => withLeaves(route, 'null'), expected: 'validation_failed' },
  {
    name: 'a NUL character in every string',
    payload: (route) => withLeaves(route, '"a\\u0000b"'),
    expected: 'validation_failed',
  },
  {
    name: 'an unpaired surrogate in every string',
    payload: (route) => withLeaves(route, '"a\\ud800b"'),
    expected: 'validation_failed',
  },
  { name: 'a __proto__ key', payload: () => '{"__proto__": {"isAdmin": true}}', expected: 'invalid_json' },
  {
    name: 'a constructor.prototype key',
    payload: () => '{"constructor": {"prototype": {"isAdmin": true}}}',
    expected: 'invalid_json',
  },
  { name: 'nesting 40 levels deep', payload: () => nested(40), expected: 'validation_failed' },
  {
    name: 'arrays nested 30,000 levels deep (60 KB)',
    payload: () => `${'['.repeat(30_000)}${']'.repeat(30_000)}`,
    expected: 'validation_failed',
  },
];

describe('malformed bodies on every POST and PATCH route → 400, never 500, and nothing changes', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const account = await t.newAccount({ channels: ['news'] });
    const subscriber = await subscribe(t.app, account.publishableKey, 'news');
    for (const route of routeCases('news', { subscriber }).filter(
      (item) => item.method === 'POST' || item.method === 'PATCH',
    )) {
      const before = await accountState(t, account.id);
      const expected = route.bodyOptional && row.optionalBody ? row.optionalBody : row.expected;
      for (const idempotencyKey of [undefined, `k-${Math.random()}`]) {
        const headers = {
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        };
        const response = await rawRequest(
          t.app,
          route.method,
          route.path,
          account.secretKey,
          row.payload(route),
          headers,
        );
        const label = `${route.method} ${route.url}`;
        expect(response.statusCode, label).not.toBe(500);
        if (expected === 'accepted') {
          expect(response.statusCode, label).toBe(200);
          continue;
        }
        expect(response.body?.error?.code, label).toBe(expected);
        expectError(response, expected);
        expect(await accountState(t, account.id), label).toEqual(before);
      }
    }
  });

  it('stores valid Unicode as sent: emoji, combining marks, right-to-left text', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const title = '🚀 Ünïcödé 👩🏽‍💻 مرحبا \u202e ok';
    const response = await rawRequest(
      t.app,
      'POST',
      '/api/v1/notifications',
      account.secretKey,
      JSON.stringify({ channelCode: 'news', title, data: { ключ: '値' } }),
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(response.statusCode).toBe(201);
    const read = await rawRequest(
      t.app,
      'GET',
      `/api/v1/notifications/${response.body.data.id}`,
      account.secretKey,
      undefined,
    );
    expect(read.body.data).toMatchObject({ title, data: { ключ: '値' } });
  });

  it('names the field that holds the bad text', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await rawRequest(
      t.app,
      'POST',
      '/api/v1/notifications',
      account.secretKey,
      '{"channelCode":"news","title":"ok","data":{"k":"a\\u0000"}}',
      { 'content-type': 'application/json' },
    );
    expect(expectError(response, 'validation_failed').details.fields).toEqual([
      { field: 'data.k', message: 'must not contain the NUL character (U+0000)' },
    ]);
  });
});
