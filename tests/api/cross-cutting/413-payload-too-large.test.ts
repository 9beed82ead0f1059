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

const LIMIT = 64 * 1024;
/** A JSON object of exactly `bytes` bytes. */
const jsonOfSize = (bytes: number) => `{"pad":"${'x'.repeat(bytes - 10)}"}`;

describe('every POST and PATCH route → 413 payload_too_large over 64 KiB', () => {
  it.each(
    routeCases('news')
      .filter((route) => route.method === 'POST' || route.method === 'PATCH')
      .map((route) => [`${route.method} ${route.url}`, route] as const),
  )('%s refuses 64 KiB + 1 byte, and 65 KiB, saying which limit, and stores nothing', async (_name, route) => {
    const account = await t.newAccount({ channels: ['news'] });
    const subscriber = await subscribe(t.app, account.publishableKey, 'news');
    const path = route.path.replace(/sub_[0-9a-z]+/, subscriber);
    const before = await accountState(t, account.id);
    for (const size of [LIMIT + 1, 65 * 1024]) {
      expect(jsonOfSize(size)).toHaveLength(size);
      const response = await rawRequest(t.app, route.method, path, account.secretKey, jsonOfSize(size), {
        'content-type': 'application/json',
      });
      expect(expectError(response, 'payload_too_large').details).toEqual({ limit: 'request_body', limitBytes: LIMIT });
    }
    expect(await accountState(t, account.id)).toEqual(before);
    // Exactly 64 KiB is within the limit: the body is read (and then judged on its content).
    const atLimit = await rawRequest(t.app, route.method, path, account.secretKey, jsonOfSize(LIMIT), {
      'content-type': 'application/json',
    });
    expect(atLimit.statusCode).not.toBe(413);
    expect(atLimit.statusCode).toBeLessThan(500);
  });

  it('answers 401 rather than 413 to a caller without a key', async () => {
    expectError(
      await rawRequest(t.app, 'POST', '/api/v1/notifications', null, jsonOfSize(LIMIT + 1), {
        'content-type': 'application/json',
      }),
      'unauthorized',
    );
  });
});
