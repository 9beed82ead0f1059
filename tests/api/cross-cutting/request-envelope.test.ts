import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { rawRequest, registeredApiRoutes } from '../../harness/api-routes.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('the error envelope and X-Request-Id on every kind of failure', () => {
  it('gives every response its own X-Request-Id', async () => {
    const account = await t.newAccount();
    const ids = new Set<string>();
    for (const url of ['/api/v1/usage', '/api/v1/usage', '/healthz', '/api/v1/nope', '/api/v1/openapi.json']) {
      const id = (await get(t.app, url, account.secretKey)).headers['x-request-id'];
      expect(id).toMatch(/^req_[0-9a-z]{26}$/);
      ids.add(String(id));
    }
    expect(ids.size).toBe(5);
  });

  it.each([
    ['GET', '/api/v1/nope'],
    ['GET', '/api/v2/notifications'],
    ['DELETE', '/api/v1/channels/news'],
    ['PUT', '/api/v1/notifications'],
  ])('answers not_found in the envelope for %s %s, with or without a key', async (method, url) => {
    const account = await t.newAccount({ channels: ['news'] });
    for (const key of [account.secretKey, null]) {
      expectError(await rawRequest(t.app, method, url, key, undefined), 'not_found');
    }
  });

  it('answers bad_request in the envelope for a malformed URL', async () => {
    const account = await t.newAccount();
    expectError(
      await rawRequest(t.app, 'GET', '/api/v1/notifications/%E0%A4%A', account.secretKey, undefined),
      'bad_request',
    );
  });

  it('answers bad_request in the envelope for a path parameter over 128 characters', async () => {
    const account = await t.newAccount();
    expectError(
      await rawRequest(t.app, 'GET', `/api/v1/notifications/ntf_${'a'.repeat(125)}`, account.secretKey, undefined),
      'bad_request',
    );
  });

  it('never answers 500 to a strange id on any route that takes one', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const routes = registeredApiRoutes(t.app).filter((route) => route.url.includes(':'));
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      for (const id of ['%00', 'ntf_%00', '%20', '%F0%9F%98%80', "x'%20OR%20'1'='1", '..%2F..%2Fetc', 'null', '0']) {
        const url = route.url.replace(/:[a-z]+/i, id);
        const response = await rawRequest(t.app, route.method, url, account.secretKey, undefined);
        expect(response.statusCode, `${route.method} ${url}`).not.toBe(500);
        expect([400, 403, 404], `${route.method} ${url}`).toContain(response.statusCode);
        expect(response.body.success).toBe(false);
      }
    }
  });
});
