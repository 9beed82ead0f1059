import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ORIGIN = { origin: 'https://shop.example' };
const preflight = (url: string, method = 'POST') =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      ...ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type',
    },
  });

describe('CORS for the routes the browser SDK calls (src/http/browser-cors.ts)', () => {
  it.each(['/api/v1/subscribers', '/api/v1/subscribers/sub_01h00000000000000000000000/unsubscribe'])(
    'answers the preflight of %s: any origin, the key and JSON, no credentials',
    async (url) => {
      const response = await preflight(url);
      expect(response.statusCode).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-allow-methods']).toBe('POST');
      expect(response.headers['access-control-allow-headers']).toBe('authorization, content-type, idempotency-key');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(response.headers['access-control-allow-headers'])).not.toContain('x-csrf-token');
    },
  );

  it('answers the preflight of the Web Push public key, which the SDK fetches with its key', async () => {
    const response = await preflight('/api/v1/web-push/public-key', 'GET');
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-methods']).toBe('GET');
    const key = await t.app.inject({ method: 'GET', url: '/api/v1/web-push/public-key', headers: ORIGIN });
    expect(key.statusCode).toBe(200);
    expect(key.headers['access-control-allow-origin']).toBe('*');
  });

  it('lets a page read the answer, errors included', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const created = await post(
      t.app,
      '/api/v1/subscribers',
      account.publishableKey,
      { channelCode: 'news', platform: 'web', token: tokens.web() },
      ORIGIN,
    );
    expectSuccess(created, 201);
    expect(created.headers['access-control-allow-origin']).toBe('*');
    expect(created.headers['access-control-expose-headers']).toBe('retry-after, x-request-id');
    const refused = await post(
      t.app,
      '/api/v1/subscribers',
      account.publishableKey,
      { channelCode: 'ghost', platform: 'web', token: tokens.web() },
      ORIGIN,
    );
    expectError(refused, 'channel_not_found');
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });

  it.each([
    ['POST', '/api/v1/notifications'],
    ['GET', '/api/v1/channels'],
    ['POST', '/api/v1/auth/signin'],
    ['GET', '/api/v1/auth/session'],
    ['POST', '/api/v1/keys'],
  ])(
    'answers no CORS at all for %s %s, so other sites still cannot call the dashboard or secret-key routes',
    async (method, url) => {
      const response = await preflight(url, method);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      expect(response.statusCode).toBe(404);
      const actual = await t.app.inject({ method: method as 'GET' | 'POST', url, headers: ORIGIN });
      expect(actual.headers['access-control-allow-origin']).toBeUndefined();
    },
  );
});
