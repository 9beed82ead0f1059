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

const send = (path: string, key: string, body: unknown, idempotencyKey: string) =>
  rawRequest(t.app, 'POST', path, key, body === undefined ? undefined : JSON.stringify(body), {
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    'idempotency-key': idempotencyKey,
  });

describe('webhook POST routes → 409 idempotency_mismatch (and idempotency_not_replayable)', () => {
  it('replays the first answer to the same Idempotency-Key and body (409 when it showed the secret), and refuses another body', async () => {
    const account = await t.newAccount();
    for (const route of await webhookPostRoutes(t, account.id)) {
      const key = `webhooks-${route.name.replace(/[^a-z-]/gi, '-')}`;
      const first = await send(route.path, account.secretKey, route.body, key);
      expect(first.statusCode, route.name).toBeLessThan(300);
      const before = await webhookState(t, account.id);
      const replay = await send(route.path, account.secretKey, route.body, key);
      if (route.showsSecret) {
        expectError(replay, 'idempotency_not_replayable');
      } else {
        expect(replay.headers['idempotency-replay'], route.name).toBe('true');
        expect(replay.body).toEqual(first.body);
      }
      expectError(await send(route.path, account.secretKey, route.otherBody, key), 'idempotency_mismatch');
      expect(await webhookState(t, account.id), route.name).toEqual(before);
    }
  });
});
