import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../src/http/error-catalog.ts';
import { expectError } from '../../harness/api-expect.ts';
import { rawRequest } from '../../harness/api-routes.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';
import { webhookPostRoutes } from './post-routes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

/** Routes with a body need a JSON object; bodiless ones ignore a well-formed body ('accepted') but not broken JSON. */
const rows: Array<{ name: string; payload: string; bodyRoutes: ErrorCode; bodiless: ErrorCode | 'accepted' }> = [
  { name: 'invalid JSON', payload: '{"url": ', bodyRoutes: 'invalid_json', bodiless: 'invalid_json' },
  { name: 'an empty body', payload: '', bodyRoutes: 'invalid_json', bodiless: 'accepted' },
  { name: 'a JSON array', payload: '[]', bodyRoutes: 'validation_failed', bodiless: 'accepted' },
  { name: 'JSON null', payload: 'null', bodyRoutes: 'validation_failed', bodiless: 'accepted' },
  {
    name: 'a NUL character',
    payload: '{"url":"https://93.184.215.14/\\u0000"}',
    bodyRoutes: 'validation_failed',
    bodiless: 'validation_failed',
  },
  {
    name: 'a __proto__ key',
    payload: '{"__proto__": {"isAdmin": true}}',
    bodyRoutes: 'invalid_json',
    bodiless: 'invalid_json',
  },
];

describe('webhook POST routes → 400 for malformed bodies, never 500, and nothing changes', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const account = await t.newAccount();
    for (const route of await webhookPostRoutes(t, account.id)) {
      const before = await webhookState(t, account.id);
      const response = await rawRequest(t.app, 'POST', route.path, account.secretKey, row.payload, {
        'content-type': 'application/json',
      });
      const expected = route.body === undefined ? row.bodiless : row.bodyRoutes;
      expect(response.statusCode, route.name).not.toBe(500);
      if (expected === 'accepted') {
        expect(response.statusCode, route.name).toBeGreaterThanOrEqual(200);
        expect(response.statusCode, route.name).toBeLessThan(300);
        continue;
      }
      expect(response.body?.error?.code, route.name).toBe(expected);
      expectError(response, expected);
      expect(await webhookState(t, account.id), route.name).toEqual(before);
    }
  });
});
