import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_BODY_LIMIT_BYTES } from '../../../src/domain/limits.ts';
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

describe('webhook POST routes → 413 payload_too_large over 64 KiB', () => {
  it('refuses 64 KiB + 1 byte on every route, and changes nothing', async () => {
    const account = await t.newAccount();
    const body = `{"pad":"${'x'.repeat(REQUEST_BODY_LIMIT_BYTES - 9)}"}`;
    expect(body).toHaveLength(REQUEST_BODY_LIMIT_BYTES + 1);
    for (const route of await webhookPostRoutes(t, account.id)) {
      const before = await webhookState(t, account.id);
      const response = await rawRequest(t.app, 'POST', route.path, account.secretKey, body, {
        'content-type': 'application/json',
      });
      expect(expectError(response, 'payload_too_large').details, route.name).toEqual({
        limit: 'request_body',
        limitBytes: REQUEST_BODY_LIMIT_BYTES,
      });
      expect(await webhookState(t, account.id)).toEqual(before);
    }
  });
});
