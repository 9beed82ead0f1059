import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('webhook POST routes → 415 unsupported_media_type', () => {
  it('refuses a body that is not application/json on every route, and changes nothing', async () => {
    const account = await t.newAccount();
    for (const route of await webhookPostRoutes(t, account.id)) {
      const before = await webhookState(t, account.id);
      for (const headers of [
        { 'content-type': 'text/plain' },
        { 'content-type': 'application/x-www-form-urlencoded' },
        {},
      ] as Array<Record<string, string>>) {
        const response = await rawRequest(
          t.app,
          'POST',
          route.path,
          account.secretKey,
          JSON.stringify(route.body ?? {}),
          headers,
        );
        expect(response.statusCode, `${route.name} ${JSON.stringify(headers)}`).toBe(415);
        expectError(response, 'unsupported_media_type');
      }
      expect(await webhookState(t, account.id)).toEqual(before);
    }
  });
});
